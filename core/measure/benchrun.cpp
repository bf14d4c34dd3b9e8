// SPDX-License-Identifier: Apache-2.0
// BenchRun::run: bench's phases (the host and the worker readied, the runs, the result) over one
// BenchState in its frame, as verify's (docs/hacking.md, "verify in phases"). Every await goes
// through the state's CancelAware; run() is the one place a cancelled job becomes
// ToolResult::cancelledResult().
#include "measure/benchrun.h"

#include "base/cancelaware.h"
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

#include <optional>

namespace hotkernel {

namespace {

int benchRunCount(const Json &arguments)
{
    const int n = arguments.value("n", 7);
    if (n < 1)
        throw UserError(QStringLiteral("n must be at least 1."));
    return n;
}

QElapsedTimer startedBenchTimer()
{
    QElapsedTimer timer;
    timer.start();
    return timer;
}

// One bench's state, in BenchRun::run's frame; the phases take a pointer to it. The members that
// give something back when destroyed (the worker, the GPU locks) are declared in the order the
// bench takes them, so they go back in the reverse order, as the one coroutine's locals did.
struct BenchState
{
    // Reads the options and resolves the script (UserError when either cannot be used).
    BenchState(MeasureSession &s, const Json &arguments, Job &j)
        : session(&s), job(j), n(benchRunCount(arguments)), warmup(arguments.value("warmup", 1)),
          fresh(arguments.value("fresh", false)), timeout(qint64(arguments.value("timeout", 300.0) * 1000.0)),
          startedAt(MeasureSetup::utcNow()), wall(startedBenchTimer()),
          file(MeasureSetup::script(s, arguments, "script")),
          shippedContract(MeasureSetup::shippedContractSha256())
    {}
    BenchState(const BenchState &) = delete;
    BenchState &operator=(const BenchState &) = delete;

    MeasureSession *session;
    CancelAware job; // every await of the phases goes through it
    const int n;
    const int warmup;
    const bool fresh;
    const std::chrono::milliseconds timeout;
    const QString startedAt;
    QElapsedTimer wall;
    ScriptFile file;
    const QString shippedContract;
    QStringList warnings;

    // --- the host and the worker ---
    CalibrationSnapshot calibrations;
    PythonInfo python;
    PreparedRunner prepared;
    std::optional<MeasureSetup::WorkerRelease> release;
    Json gpu;
    DeviceLock deviceLock;
    // On a remote host the lock is the host's, not this machine's (docs/remote.md).
    std::shared_ptr<QProcess> remoteLock;

    // --- the runs ---
    std::vector<double> samples;
    Json runs = Json::array();
    RunLine first;
    QString untrusted;   // the first run the contract itself marked invalid (issue 19)
    QString unwitnessed; // why the GPU did not witness a run, when it did not
};

// The script hashed, the host readied (a remote one: the script copied, its witness built), the
// calibrations and the interpreter to start with.
QCoro::Task<void> readyBenchHost(BenchState *state)
{
    BenchState &s = *state;
    const QStringList hostFiles{s.file.path};
    // The result's script_sha256, hashed off the main thread (the file may be huge or a FIFO).
    const QStringList scriptHash = co_await s.job(MeasureSetup::sha256OfFiles(hostFiles));
    s.file.sha256 = scriptHash.value(0);
    const bool hostReady = co_await s.job(MeasureSetup::prepareHost(*s.session, hostFiles, s.job.get()));
    s.job.require(hostReady);
    co_await s.job(MeasureSetup::prepareRemoteWitness(*s.session, s.job.get()));
    // Issue 41: read before the script's worker runs, like verify's.
    const QString workRoot = s.session->workDir().root();
    s.calibrations = co_await s.job(MeasureSetup::calibrations(workRoot));
    s.python = co_await s.job(MeasureSetup::startingInterpreter(*s.session, s.job.get()));
}

// The worker started (or a kept one reused), its interpreter confirmed, the GPU snapshot, the
// worker's start waited for and the GPU lock taken.
QCoro::Task<void> startBenchWorker(BenchState *state)
{
    BenchState &s = *state;
    // Unused by a fresh process; judged anyway, since every co_await here runs unconditionally.
    std::vector<std::pair<QString, QString>> roles; // a named argument (see docs/hacking.md)
    roles.emplace_back(QStringLiteral("baseline"), s.file.path);
    const std::vector<QByteArray> keys =
        co_await s.job(MeasureSetup::judgeWorkers(*s.session, std::move(roles), s.python));
    s.prepared = MeasureSetup::prepare(*s.session, QStringLiteral("baseline"), s.file, s.python, s.fresh,
                                       s.timeout, s.job.pointer(), keys[0]);
    s.release.emplace(*s.session, std::vector<PreparedRunner *>{&s.prepared});
    s.python =
        co_await s.job(MeasureSetup::confirmedInterpreter(*s.session, s.python, s.job.get(), *s.release));

    QString starting = QStringLiteral("starting the worker");
    if (s.fresh)
        starting = QStringLiteral("fresh mode: one process per run");
    else if (s.prepared.reused)
        starting = QStringLiteral("reusing the worker");
    s.job->setProgress(0, double(s.n + s.warmup), starting);
    s.gpu = co_await s.job(MeasureSetup::gpuSnapshot(*s.session, s.job.get(), &s.warnings));
    const bool ready = co_await s.job(s.prepared.runner->waitReady());
    s.job.require(ready);

    // Only a target that times on the GPU takes the GPU lock; CPU targets share nothing (issue 18).
    const bool timesOnGpu =
        DeviceLock::needsLock(s.prepared.worker ? s.prepared.worker->readyLine() : Json());
    if (timesOnGpu) {
        const QPointer<RemoteHost> remote = s.session->remote(); // a named argument (docs/hacking.md)
        const bool locked = co_await s.job(
            MeasureSetup::takeGpuLock(s.deviceLock, s.remoteLock, remote, s.job.pointer(), s.timeout));
        s.job.require(locked);
    }
}

// A run's line judged: an error or a failed output check ends the bench (UserError); a run the
// contract or the GPU's witness cannot vouch for leaves the bench invalid.
void judgeBenchRun(BenchState &s, int i, const RunOutcome &outcome)
{
    const RunLine &line = outcome.line;
    if (const QString error = stringField(line.json, "error"); !error.isEmpty())
        throw UserError(QStringLiteral("%1 run %2: the contract reported an error: %3")
                            .arg(s.file.given)
                            .arg(i)
                            .arg(error));
    if (!line.ok)
        throw UserError(
            QStringLiteral("%1 run %2: the output check failed (%3). bench times only scripts whose "
                           "output matches the reference; fix the function, or run verify to see "
                           "it as 'incorrect'.")
                .arg(s.file.given)
                .arg(i)
                .arg(line.mismatch.isEmpty() ? QStringLiteral("ok is false") : line.mismatch));
    if (i == 0)
        s.first = line;
    // A patched timer or a tensor subclass: its time is no measurement, so no valid bench.
    if (const QString why = stringField(line.json, "invalid"); !why.isEmpty() && s.untrusted.isEmpty())
        s.untrusted = QStringLiteral("the script's run %1 cannot be trusted: %2").arg(i).arg(why);
    // Issue 19: the GPU's witness of the same block (docs/contract.md, "The GPU witness").
    if (stringField(line.json, "device") != QLatin1String("cuda"))
        return;
    if (!outcome.witnessed || WitnessTrace::unwitnessed(outcome.witness, line.json)) {
        s.unwitnessed = outcome.witnessed
                            ? stringField(line.json, "witness_note",
                                          QStringLiteral("the contract made no witness replays"))
                            : QStringLiteral("hotkernel's GPU tracer, libhotkernel_tracer.so, "
                                             "is not installed beside hotkernel");
    } else if (const QString why = WitnessTrace::violation(outcome.witness, line.json);
               !why.isEmpty() && s.untrusted.isEmpty()) {
        s.untrusted = QStringLiteral("the script's run %1 contradicts the GPU's witness: %2").arg(i).arg(why);
    }
}

// A measured run's time and its entry in the result's runs.
void keepBenchRun(BenchState &s, int i, const RunOutcome &outcome)
{
    const RunLine &line = outcome.line;
    // Protocol 5: the GPU's time where it witnessed the timed replays; the line's is a cross-check.
    const double ms = PairChecks::timeOf(outcome);
    s.samples.push_back(ms);
    s.runs.push_back(Json{{"run", i},
                          {"ms", ms},
                          {"reported_ms", line.ms},
                          {"timer", toStd(line.timer)},
                          {"samples_ms", line.samplesMs},
                          {"max_err", line.json.value("max_err", Json())},
                          {"wall_s", outcome.wallSeconds}});
}

// The warm-up runs, then n measured ones; the GPU given back after the last.
QCoro::Task<void> runBench(BenchState *state)
{
    BenchState &s = *state;
    for (int i = 0; i < s.warmup + s.n; ++i) {
        const RunOutcome outcome = co_await s.job(s.prepared.runner->run(i));
        s.job.require(!outcome.cancelled);
        judgeBenchRun(s, i, outcome);
        s.job->setProgress(i + 1, double(s.n + s.warmup),
                           QStringLiteral("run %1%2: %3 ms")
                               .arg(i)
                               .arg(i < s.warmup ? QStringLiteral(" (warm-up)") : QString())
                               .arg(outcome.line.ms, 0, 'g', 5));
        if (i >= s.warmup)
            keepBenchRun(s, i, outcome);
    }
    s.deviceLock.release();
    s.remoteLock.reset();
}

// The warning for a script that ran another contract than the one this build ships.
void warnOfOtherContract(BenchState &s)
{
    const QString ran = stringField(s.first.json, "contract_sha256");
    if (!s.shippedContract.isEmpty() && ran != s.shippedContract)
        s.warnings.append(
            QStringLiteral(
                "the script ran a contract (%1) that differs from the one this hotkernel ships (%2); "
                "verify will call it invalid. Re-vendor it with `hotkernel new --force`.")
                .arg(ran.isEmpty() ? QStringLiteral("none reported") : ran.left(12),
                     s.shippedContract.left(12)));
}

// The statistics, the roofline inputs and what the mean time achieves (the point the roofline
// view plots).
void addBenchTimes(const BenchState &s, Json &r)
{
    const SampleStats stats = Statistics::describe(s.samples);
    r["n"] = stats.n;
    r["warmup"] = s.warmup;
    r["mode"] = s.fresh ? "fresh" : "warm";
    r["worker_reused"] = s.prepared.reused;
    r["worker_from_spare"] = s.prepared.fromSpare;
    r["stats"] = Json{{"n", stats.n},
                      {"mean_ms", stats.mean},
                      {"std_ms", stats.std},
                      {"min_ms", stats.min},
                      {"samples_ms", s.samples}};
    r["runs"] = s.runs;
    const Json flops = s.first.json.value("flops", Json());
    const Json bytes = s.first.json.value("bytes", Json());
    r["roofline_inputs"] = Json{{"flops", flops}, {"bytes", bytes}};
    const double mean = stats.mean;
    r["achieved"] = Json{
        {"tflops", flops.is_number() && mean > 0 ? Json(flops.get<double>() / (mean * 1e-3) / 1e12) : Json()},
        {"gbps", bytes.is_number() && mean > 0 ? Json(bytes.get<double>() / (mean * 1e-3) / 1e9) : Json()}};
}

// The structured result (valid unless a run or the physical floor says otherwise) and its text.
ToolResult benchResult(BenchState &s)
{
    // Issue 25: a time below what this card can physically do marks the result invalid.
    const FloorCeilings ceilings = MeasureSetup::floorCeilings(s.gpu, s.first.json, s.calibrations);
    const PhysicalFloor::Report floor = PhysicalFloor::judge(ceilings, PhysicalFloor::work(s.first.json),
                                                             {{QStringLiteral("script"), s.samples}});
    warnOfOtherContract(s);

    Json r = MeasureSetup::benchResultHead(s.file);
    r["target"] = s.first.json.value("target", Json());
    addBenchTimes(s, r);
    const QString invalidReason = !s.untrusted.isEmpty() ? s.untrusted : floor.violation;
    r["valid"] = invalidReason.isEmpty();
    r["invalid_reason"] = invalidReason.isEmpty() ? Json() : Json(toStd(invalidReason));
    r["physical_floor"] = floor.json;
    r["contract"] = MeasureSetup::contractJson(s.first);
    r["contract"]["shipped_contract_sha256"] =
        s.shippedContract.isEmpty() ? Json() : Json(toStd(s.shippedContract));
    r["versions"] = MeasureSetup::versionsJson(s.first);
    r["interpreter"] = MeasureSetup::interpreterJson(s.python);
    r["gpu"] = s.gpu;
    if (Json host = MeasureSetup::hostJson(*s.session); !host.is_null())
        r["host"] = std::move(host);
    r["commands"] = toJson(QStringList{s.prepared.runner->commandLine()});
    if (!s.unwitnessed.isEmpty())
        s.warnings.append(QStringLiteral("the GPU did not witness the runs (%1), so the times rest on the "
                                         "contract's own timer alone")
                              .arg(s.unwitnessed));
    r["warnings"] = toJson(s.warnings);
    r["started_at"] = toStd(s.startedAt);
    r["finished_at"] = toStd(MeasureSetup::utcNow());
    r["wall_s"] = s.wall.nsecsElapsed() / 1e9;
    return ToolResult::success(r, BenchRun::text(r));
}

} // namespace

QCoro::Task<ToolResult> BenchRun::run(MeasureSession &session, Json arguments, Job &job)
{
    BenchState state(session, arguments, job); // UserError: options or a script that cannot be used
    BenchState *phaseState = &state;           // a named argument (docs/hacking.md)
    bool cancelled = false;
    try {
        co_await state.job(readyBenchHost(phaseState));
        co_await state.job(startBenchWorker(phaseState));
        co_await state.job(runBench(phaseState));
    } catch (const JobCancelled &) {
        cancelled = true;
    }
    if (cancelled)
        co_return ToolResult::cancelledResult();
    co_return benchResult(state);
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
