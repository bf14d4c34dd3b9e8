// SPDX-License-Identifier: Apache-2.0
#include "measure/benchrun.h"

#include "base/job.h"
#include "base/usererror.h"
#include "measure/devicelock.h"
#include "measure/measuresession.h"
#include "measure/measuresetup.h"
#include "measure/pairchecks.h"
#include "measure/statistics.h"
#include "measure/workerscriptrunner.h"
#include "remote/remotehost.h"

#include <QElapsedTimer>

namespace hotkernel {

QCoro::Task<ToolResult> BenchRun::run(MeasureSession &session, Json arguments, Job &jobRef)
{
    QPointer<Job> job(&jobRef);
    const int n = arguments.value("n", 7);
    const int warmup = arguments.value("warmup", 1);
    const bool fresh = arguments.value("fresh", false);
    const auto timeout = std::chrono::milliseconds(qint64(arguments.value("timeout", 300.0) * 1000.0));
    if (n < 1)
        throw UserError(QStringLiteral("n must be at least 1."));
    const QString startedAt = MeasureSetup::utcNow();
    QElapsedTimer wall;
    wall.start();
    ScriptFile file = MeasureSetup::script(session, arguments, "script");
    const QString shippedContract = MeasureSetup::shippedContractSha256();
    QStringList warnings;

    const QStringList hostFiles{file.path};
    // The result's script_sha256, hashed off the main thread (the file may be huge or a FIFO).
    const QStringList scriptHash = co_await MeasureSetup::sha256OfFiles(hostFiles);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    file.sha256 = scriptHash.value(0);
    const bool hostReady = co_await MeasureSetup::prepareHost(session, hostFiles, job);
    if (!job || !hostReady || job->isCancelled())
        co_return ToolResult::cancelledResult();
    co_await MeasureSetup::prepareRemoteWitness(session, job);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    // Issue 41: read before the script's worker runs, like verify's.
    const QString workRoot = session.workDir().root();
    const CalibrationSnapshot calibrations = co_await MeasureSetup::calibrations(workRoot);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    PythonInfo python = co_await MeasureSetup::startingInterpreter(session, job);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();

    // Unused by a fresh process; judged anyway, since every co_await here runs unconditionally.
    std::vector<std::pair<QString, QString>> roles; // a named argument (see docs/hacking.md)
    roles.emplace_back(QStringLiteral("baseline"), file.path);
    const std::vector<QByteArray> keys =
        co_await MeasureSetup::judgeWorkers(session, std::move(roles), python);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    PreparedRunner prepared = MeasureSetup::prepare(session, QStringLiteral("baseline"), file, python, fresh,
                                                    timeout, job, keys[0]);
    MeasureSetup::WorkerRelease release(session, {&prepared});
    python = co_await MeasureSetup::confirmedInterpreter(session, python, job, release);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();

    job->setProgress(0, double(n + warmup),
                     fresh ? QStringLiteral("fresh mode: one process per run")
                           : (prepared.reused ? QStringLiteral("reusing the worker")
                                              : QStringLiteral("starting the worker")));
    const Json gpu = co_await MeasureSetup::gpuSnapshot(session, job, &warnings);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    const bool ready = co_await prepared.runner->waitReady();
    if (!job || !ready || job->isCancelled())
        co_return ToolResult::cancelledResult();

    DeviceLock deviceLock;
    // Only a target that times on the GPU takes the GPU lock; CPU targets share nothing (issue 18).
    // On a remote host the lock is the host's, not this machine's (docs/remote.md).
    std::shared_ptr<QProcess> remoteLock;
    const bool timesOnGpu = DeviceLock::needsLock(prepared.worker ? prepared.worker->readyLine() : Json());
    if (timesOnGpu) {
        const bool locked =
            co_await MeasureSetup::takeGpuLock(deviceLock, remoteLock, session.remote(), job, timeout);
        if (!locked)
            co_return ToolResult::cancelledResult();
    }

    std::vector<double> samples;
    Json runs = Json::array();
    RunLine first;
    QString untrusted;   // the first run the contract itself marked invalid (issue 19)
    QString unwitnessed; // why the GPU did not witness a run, when it did not
    for (int i = 0; i < warmup + n; ++i) {
        const RunOutcome outcome = co_await prepared.runner->run(i);
        if (!job || outcome.cancelled || job->isCancelled())
            co_return ToolResult::cancelledResult();
        const RunLine &line = outcome.line;
        if (const QString error = stringField(line.json, "error"); !error.isEmpty())
            throw UserError(QStringLiteral("%1 run %2: the contract reported an error: %3")
                                .arg(file.given)
                                .arg(i)
                                .arg(error));
        if (!line.ok)
            throw UserError(
                QStringLiteral("%1 run %2: the output check failed (%3). bench times only scripts whose "
                               "output matches the reference; fix the function, or run verify to see "
                               "it as 'incorrect'.")
                    .arg(file.given)
                    .arg(i)
                    .arg(line.mismatch.isEmpty() ? QStringLiteral("ok is false") : line.mismatch));
        if (i == 0)
            first = line;
        // A patched timer or a tensor subclass: its time is no measurement, so no valid bench.
        if (const QString why = stringField(line.json, "invalid"); !why.isEmpty() && untrusted.isEmpty())
            untrusted = QStringLiteral("the script's run %1 cannot be trusted: %2").arg(i).arg(why);
        // Issue 19: the GPU's witness of the same block (docs/contract.md, "The GPU witness").
        if (stringField(line.json, "device") == QLatin1String("cuda")) {
            if (!outcome.witnessed || WitnessTrace::unwitnessed(outcome.witness, line.json)) {
                unwitnessed = outcome.witnessed
                                  ? stringField(line.json, "witness_note",
                                                QStringLiteral("the contract made no witness replays"))
                                  : QStringLiteral("hotkernel's GPU tracer, libhotkernel_tracer.so, "
                                                   "is not installed beside hotkernel");
            } else if (const QString why = WitnessTrace::violation(outcome.witness, line.json);
                       !why.isEmpty() && untrusted.isEmpty()) {
                untrusted =
                    QStringLiteral("the script's run %1 contradicts the GPU's witness: %2").arg(i).arg(why);
            }
        }
        job->setProgress(i + 1, double(n + warmup),
                         QStringLiteral("run %1%2: %3 ms")
                             .arg(i)
                             .arg(i < warmup ? QStringLiteral(" (warm-up)") : QString())
                             .arg(line.ms, 0, 'g', 5));
        if (i < warmup)
            continue;
        // Protocol 5: the GPU's time where it witnessed the timed replays; the line's is a cross-check.
        const double ms = PairChecks::timeOf(outcome);
        samples.push_back(ms);
        runs.push_back(Json{{"run", i},
                            {"ms", ms},
                            {"reported_ms", line.ms},
                            {"timer", toStd(line.timer)},
                            {"samples_ms", line.samplesMs},
                            {"max_err", line.json.value("max_err", Json())},
                            {"wall_s", outcome.wallSeconds}});
    }
    deviceLock.release();
    remoteLock.reset();
    // Issue 25: a time below what this card can physically do marks the result invalid.
    const FloorCeilings ceilings = MeasureSetup::floorCeilings(gpu, first.json, calibrations);
    const PhysicalFloor::Report floor = PhysicalFloor::judge(ceilings, PhysicalFloor::work(first.json),
                                                             {{QStringLiteral("script"), samples}});

    const QString ran = stringField(first.json, "contract_sha256");
    if (!shippedContract.isEmpty() && ran != shippedContract)
        warnings.append(
            QStringLiteral(
                "the script ran a contract (%1) that differs from the one this hotkernel ships (%2); "
                "verify will call it invalid. Re-vendor it with `hotkernel new --force`.")
                .arg(ran.isEmpty() ? QStringLiteral("none reported") : ran.left(12),
                     shippedContract.left(12)));

    const SampleStats s = Statistics::describe(samples);
    Json r = MeasureSetup::benchResultHead(file);
    r["target"] = first.json.value("target", Json());
    r["n"] = s.n;
    r["warmup"] = warmup;
    r["mode"] = fresh ? "fresh" : "warm";
    r["worker_reused"] = prepared.reused;
    r["worker_from_spare"] = prepared.fromSpare;
    r["stats"] =
        Json{{"n", s.n}, {"mean_ms", s.mean}, {"std_ms", s.std}, {"min_ms", s.min}, {"samples_ms", samples}};
    r["runs"] = runs;
    const Json flops = first.json.value("flops", Json());
    const Json bytes = first.json.value("bytes", Json());
    r["roofline_inputs"] = Json{{"flops", flops}, {"bytes", bytes}};
    // What the mean time achieves: the point the roofline view plots.
    r["achieved"] =
        Json{{"tflops",
              flops.is_number() && s.mean > 0 ? Json(flops.get<double>() / (s.mean * 1e-3) / 1e12) : Json()},
             {"gbps",
              bytes.is_number() && s.mean > 0 ? Json(bytes.get<double>() / (s.mean * 1e-3) / 1e9) : Json()}};
    const QString invalidReason = !untrusted.isEmpty() ? untrusted : floor.violation;
    r["valid"] = invalidReason.isEmpty();
    r["invalid_reason"] = invalidReason.isEmpty() ? Json() : Json(toStd(invalidReason));
    r["physical_floor"] = floor.json;
    r["contract"] = MeasureSetup::contractJson(first);
    r["contract"]["shipped_contract_sha256"] =
        shippedContract.isEmpty() ? Json() : Json(toStd(shippedContract));
    r["versions"] = MeasureSetup::versionsJson(first);
    r["interpreter"] = MeasureSetup::interpreterJson(python);
    r["gpu"] = gpu;
    if (Json host = MeasureSetup::hostJson(session); !host.is_null())
        r["host"] = std::move(host);
    r["commands"] = toJson(QStringList{prepared.runner->commandLine()});
    if (!unwitnessed.isEmpty())
        warnings.append(QStringLiteral("the GPU did not witness the runs (%1), so the times rest on the "
                                       "contract's own timer alone")
                            .arg(unwitnessed));
    r["warnings"] = toJson(warnings);
    r["started_at"] = toStd(startedAt);
    r["finished_at"] = toStd(MeasureSetup::utcNow());
    r["wall_s"] = wall.nsecsElapsed() / 1e9;
    co_return ToolResult::success(r, text(r));
}

namespace {
QString num(const Json &v, int precision = 5)
{
    return v.is_number() ? QString::number(v.get<double>(), 'g', precision) : QStringLiteral("-");
}
QString str(const Json &o, const char *key)
{
    return o.contains(key) && o[key].is_string() ? toQt(o[key].get<std::string>()) : QStringLiteral("?");
}
} // namespace

QString BenchRun::headline(const Json &r)
{
    if (!r.is_object() || !r.contains("stats") || !r["stats"].is_object())
        return {};
    const Json &s = r["stats"];
    if (!s.contains("mean_ms") || !s["mean_ms"].is_number())
        return {};
    const double mean = s["mean_ms"].get<double>();
    const double spread = s.contains("std_ms") && s["std_ms"].is_number() ? s["std_ms"].get<double>() : 0.0;
    // Microseconds with two decimals, as record and the leaderboard write times.
    QString line = QStringLiteral("%1 ± %2 us").arg(mean * 1000, 0, 'f', 2).arg(spread * 1000, 0, 'f', 2);
    if (s.contains("n") && s["n"].is_number_integer())
        line += QStringLiteral(" (n %1)").arg(s["n"].get<int>());
    return line;
}

QString BenchRun::text(const Json &r)
{
    const Json &s = r["stats"];
    const Json &c = r["contract"];
    QString t;
    t += QStringLiteral("bench %1 (target %2)\n").arg(str(r, "script"), str(r, "target"));
    if (r.value("valid", true) == false)
        t += QStringLiteral("  INVALID: %1\n").arg(str(r, "invalid_reason"));
    t += QStringLiteral("  mean %1 ms ± %2   min %3 ms   n %4 + %5 warm-up\n")
             .arg(num(s["mean_ms"]), num(s["std_ms"], 3), num(s["min_ms"]))
             .arg(r["n"].get<int>())
             .arg(r["warmup"].get<int>());
    QStringList samples;
    for (const Json &v : s["samples_ms"])
        samples.append(num(v));
    t += QStringLiteral("  samples (ms): %1\n").arg(samples.join(QLatin1Char(' ')));
    t += QStringLiteral("  roofline inputs: flops %1, bytes %2   achieved: %3 TFLOP/s, %4 GB/s\n")
             .arg(num(r["roofline_inputs"]["flops"], 6), num(r["roofline_inputs"]["bytes"], 12),
                  num(r["achieved"]["tflops"], 4), num(r["achieved"]["gbps"], 5));
    t += QStringLiteral("  device %1 %2, timer %3, mode %4 (%5), wall %6 s\n")
             .arg(str(c, "device"), str(c, "device_name"), str(c, "timer"), str(r, "mode"),
                  r["worker_reused"].get<bool>() ? QStringLiteral("worker reused")
                                                 : QStringLiteral("new worker"),
                  num(r["wall_s"], 3));
    if (const QString floor = PhysicalFloor::summary(r.value("physical_floor", Json())); !floor.isEmpty())
        t += QStringLiteral("  floor %1\n").arg(floor);
    for (const Json &w : r["warnings"])
        t += QStringLiteral("  warning: %1\n").arg(toQt(w.get<std::string>()));
    return t;
}

} // namespace hotkernel
