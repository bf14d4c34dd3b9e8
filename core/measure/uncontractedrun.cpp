// SPDX-License-Identifier: Apache-2.0
#include "measure/uncontractedrun.h"

#include "base/job.h"
#include "base/usererror.h"
#include "measure/devicelock.h"
#include "measure/measuresession.h"
#include "measure/measuresetup.h"
#include "measure/statistics.h"
#include "measure/uncontractedscript.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>

#include <cmath>
#include <memory>
#include <optional>
#include <utility>

namespace hotkernel {

namespace {

// The original's defaults for its generic scripts: n = 7 measured runs after one warm-up.
constexpr int DefaultRuns = 7;

struct Side
{
    ScriptFile file;
    std::unique_ptr<UncontractedScriptRunner> runner;
    std::vector<double> ms;
    Json failedRuns = Json::array();
};

QString workingDirectory(MeasureSession &session, const Json &arguments)
{
    const QString cwd = stringField(arguments, "cwd");
    if (cwd.isEmpty())
        return session.workDir().root();
    const QString dir = session.workDir().requireInside(cwd, QStringLiteral("cwd"));
    if (!QFileInfo(dir).isDir())
        throw UserError(QStringLiteral("cwd %1 is not a directory inside the working directory %2.")
                            .arg(cwd, session.workDir().root()));
    return dir;
}

// The script is looked up from cwd when one is given (the original's rule), else from the root.
ScriptFile scriptFile(MeasureSession &session, const Json &arguments, const char *key, const QString &cwd)
{
    Json resolved = arguments;
    const QString given = stringField(arguments, key);
    if (!given.isEmpty() && QFileInfo(given).isRelative())
        resolved[key] = toStd(QDir(cwd).filePath(given));
    ScriptFile file = MeasureSetup::script(session, resolved, key);
    file.given = given;
    return file;
}

std::unique_ptr<UncontractedScriptRunner> runnerFor(const ScriptFile &file, const PythonInfo &python,
                                                    const QString &cwd, const Json &arguments, Job *job)
{
    ScriptRunnerOptions options;
    options.python = python.path;
    options.script = file.path;
    options.displayName = file.given;
    options.workingDirectory = cwd;
    options.timeout = std::chrono::milliseconds(qint64(arguments.value("timeout", 300.0) * 1000.0));
    QStringList args;
    for (const Json &a : arguments.value("args", Json::array()))
        args.append(toQt(a.get<std::string>()));
    auto runner = std::make_unique<UncontractedScriptRunner>(options, args);
    runner->setJob(job);
    return runner;
}

// The GPU's snapshot for the result, then the GPU taken for the timed runs (the job is told while
// another process holds it). Nothing when the job ended meanwhile or the GPU could not be had.
QCoro::Task<std::optional<Json>> gpuThenLock(MeasureSession &session, DeviceLock &deviceLock,
                                             QPointer<Job> job, QStringList *warnings)
{
    Json gpu = co_await MeasureSetup::gpuSnapshot(session, job, warnings);
    if (!job || job->isCancelled())
        co_return std::nullopt;
    const std::function<void(const QString &)> onWait = [job](const QString &message) {
        if (job)
            job->setProgress(0, std::nullopt, message);
    };
    const bool locked = co_await deviceLock.acquire(DeviceLock::currentDevice(), job, onWait);
    if (!job || !locked || job->isCancelled())
        co_return std::nullopt;
    co_return std::optional<Json>(std::move(gpu));
}

Json statsJson(const std::vector<double> &samples)
{
    const SampleStats s = Statistics::describe(samples);
    return Json{
        {"n", s.n}, {"mean_ms", s.mean}, {"std_ms", s.std}, {"min_ms", s.min}, {"samples_ms", samples}};
}

Json intervalJson(const std::optional<Interval> &i)
{
    return i ? Json::array({i->low, i->high}) : Json();
}

// Issue 41: the times are the scripts' own claims, so the verdict never says faster or slower.
QString claimedVerdict(const QString &verdict)
{
    if (verdict == QLatin1String("faster") || verdict == QLatin1String("slower"))
        return QStringLiteral("claimed_") + verdict;
    return verdict;
}

void markUncontracted(Json &r)
{
    r["contracted"] = false;
    r["label"] = UncontractedRun::label();
    r["mode"] = "fresh";
    r["contract"] = Json{{"status", UncontractedRun::label()}};
    r["roofline_inputs"] = Json{{"flops", Json()}, {"bytes", Json()}};
}

} // namespace

void UncontractedRun::addSchemaProperties(Json &inputSchema)
{
    Json &p = inputSchema["properties"];
    p["args"] = Json{{"type", "array"},
                     {"items", {{"type", "string"}}},
                     {"description", "Arguments for the script; the run is then uncontracted."}};
    p["cwd"] = Json{{"type", "string"}, {"description", "Folder (inside the working directory) to run in."}};
}

QString UncontractedRun::caveat()
{
    return QStringLiteral(
        "uncontracted: the script is not a target made by new_target, so hotkernel neither draws its "
        "inputs, nor checks its output against an fp32 reference, nor controls its timer; its own "
        "\"ms\" and \"ok\" are taken as printed. No anti-cheat guarantee; record refuses it. "
        "new_target makes a contracted pair.");
}

bool UncontractedRun::prepare(MeasureSession &session, Json &arguments,
                              std::initializer_list<const char *> keys)
{
    const bool hasCwd = arguments.contains("cwd");
    const QString cwd = hasCwd ? workingDirectory(session, arguments) : session.workDir().root();
    bool uncontracted = arguments.contains("args") && !arguments["args"].empty();
    Json resolved = arguments;
    QStringList withContract;
    QStringList withoutContract;
    for (const char *key : keys) {
        const QString given = stringField(arguments, key);
        if (given.isEmpty())
            continue;
        const QString path = QDir(cwd).absoluteFilePath(given);
        resolved[key] = toStd(path);
        if (!QFileInfo(path).isFile())
            continue;
        const bool scriptUncontracted = UncontractedScriptRunner::isUncontracted(path);
        (scriptUncontracted ? withoutContract : withContract)
            .append(QLatin1String(key) + QLatin1Char(' ') + given);
        uncontracted = uncontracted || scriptUncontracted;
    }
    // Issue 41: one side under the contract and one outside it would compare a controlled time
    // with a printed claim; a candidate could leave the contract to print any time it likes.
    if (!withContract.isEmpty() && !withoutContract.isEmpty())
        throw UserError(
            QStringLiteral("the %1 imports the measurement contract but the %2 does not, so the two "
                           "times would not be measured the same way. Make the %2 a contracted "
                           "script (copy the baseline and edit its kernel, or `hotkernel new`), "
                           "or compare two uncontracted scripts.")
                .arg(withContract.join(QStringLiteral(", ")), withoutContract.join(QStringLiteral(", "))));
    if (!uncontracted && hasCwd) {
        resolved.erase("cwd");
        resolved.erase("args");
        arguments = std::move(resolved);
    }
    return uncontracted;
}

QCoro::Task<ToolResult> UncontractedRun::bench(MeasureSession &session, Json arguments, Job &jobRef)
{
    QPointer<Job> job(&jobRef);
    const int n = arguments.value("n", DefaultRuns);
    const int warmup = arguments.value("warmup", 1);
    const QString startedAt = MeasureSetup::utcNow();
    QElapsedTimer wall;
    wall.start();
    const QString cwd = workingDirectory(session, arguments);
    ScriptFile file = scriptFile(session, arguments, "script", cwd);
    QStringList warnings{caveat()};
    // The result's script_sha256, hashed off the main thread (the file may be huge or a FIFO).
    const QStringList scriptPaths{file.path};
    const QStringList scriptHash = co_await MeasureSetup::sha256OfFiles(scriptPaths);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    file.sha256 = scriptHash.value(0);

    const PythonInfo python = co_await MeasureSetup::startingInterpreter(session, job);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    const std::unique_ptr<UncontractedScriptRunner> runner = runnerFor(file, python, cwd, arguments, job);
    DeviceLock deviceLock;
    const std::optional<Json> gpu = co_await gpuThenLock(session, deviceLock, job, &warnings);
    if (!gpu)
        co_return ToolResult::cancelledResult();

    std::vector<double> samples;
    Json runs = Json::array();
    for (int i = 0; i < warmup + n; ++i) {
        const RunOutcome outcome = co_await runner->run(i);
        if (!job || outcome.cancelled || job->isCancelled())
            co_return ToolResult::cancelledResult();
        if (!outcome.line.ok)
            throw UserError(QStringLiteral("%1 run %2: the script printed ok false (%3); bench times only "
                                           "runs that pass their own check.")
                                .arg(file.given)
                                .arg(i)
                                .arg(outcome.line.mismatch));
        job->setProgress(i + 1, double(n + warmup),
                         QStringLiteral("run %1%2: %3 ms")
                             .arg(i)
                             .arg(i < warmup ? QStringLiteral(" (warm-up)") : QString())
                             .arg(outcome.line.ms, 0, 'g', 5));
        if (i < warmup)
            continue;
        samples.push_back(outcome.line.ms);
        runs.push_back(Json{{"run", i},
                            {"ms", outcome.line.ms},
                            {"line", outcome.line.json},
                            {"wall_s", outcome.wallSeconds}});
    }
    deviceLock.release();

    Json r = MeasureSetup::benchResultHead(file);
    r["target"] = Json();
    r["n"] = int(samples.size());
    r["warmup"] = warmup;
    r["worker_reused"] = false;
    r["stats"] = statsJson(samples);
    r["runs"] = runs;
    markUncontracted(r);
    r["achieved"] = Json{{"tflops", Json()}, {"gbps", Json()}};
    r["versions"] = Json::object();
    r["interpreter"] = MeasureSetup::interpreterJson(python);
    r["gpu"] = *gpu;
    r["cwd"] = toStd(cwd);
    r["commands"] = toJson(QStringList{runner->commandLine()});
    r["warnings"] = toJson(warnings);
    r["started_at"] = toStd(startedAt);
    r["finished_at"] = toStd(MeasureSetup::utcNow());
    r["wall_s"] = wall.nsecsElapsed() / 1e9;
    const SampleStats s = Statistics::describe(samples);
    const QString text = QStringLiteral("bench %1 (UNCONTRACTED)\n  mean %2 ms ± %3   min %4 ms   n %5 + %6 "
                                        "warm-up\n  %7\n")
                             .arg(file.given)
                             .arg(s.mean, 0, 'g', 5)
                             .arg(s.std, 0, 'g', 3)
                             .arg(s.min, 0, 'g', 5)
                             .arg(s.n)
                             .arg(warmup)
                             .arg(caveat());
    co_return ToolResult::success(r, text);
}

QCoro::Task<ToolResult> UncontractedRun::verify(MeasureSession &session, Json arguments, Job &jobRef)
{
    QPointer<Job> job(&jobRef);
    const int n = arguments.value("n", DefaultRuns);
    const int warmup = arguments.value("warmup", 1);
    if (n < 2)
        throw UserError(QStringLiteral("n must be at least 2 (the spread needs two runs per side)."));
    ComparisonOptions comparisonOptions;
    const QString ruleName = stringField(arguments, "rule", QStringLiteral("welch"));
    if (const auto rule = Statistics::ruleFromName(ruleName))
        comparisonOptions.rule = *rule;
    comparisonOptions.minEffect = arguments.value("min_effect", 0.01);
    const QString startedAt = MeasureSetup::utcNow();
    QElapsedTimer wall;
    wall.start();
    const QString cwd = workingDirectory(session, arguments);
    Side b, c;
    b.file = scriptFile(session, arguments, "baseline", cwd);
    c.file = scriptFile(session, arguments, "candidate", cwd);
    QStringList warnings{caveat()};
    const QStringList scriptPaths{b.file.path, c.file.path};
    const QStringList scriptHashes = co_await MeasureSetup::sha256OfFiles(scriptPaths);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    b.file.sha256 = scriptHashes.value(0);
    c.file.sha256 = scriptHashes.value(1);

    const PythonInfo python = co_await MeasureSetup::startingInterpreter(session, job);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    b.runner = runnerFor(b.file, python, cwd, arguments, job);
    c.runner = runnerFor(c.file, python, cwd, arguments, job);
    DeviceLock deviceLock;
    const std::optional<Json> gpu = co_await gpuThenLock(session, deviceLock, job, &warnings);
    if (!gpu)
        co_return ToolResult::cancelledResult();

    // Pairs in alternating order (b c, c b, ...), as the contracted verify runs them.
    bool baselineFailed = false;
    const int pairs = warmup + n;
    for (int i = 0; i < pairs; ++i) {
        Side *order[2] = {&b, &c};
        if (i % 2 == 1)
            std::swap(order[0], order[1]);
        for (Side *side : order) {
            const RunOutcome outcome = co_await side->runner->run(i);
            if (!job || outcome.cancelled || job->isCancelled())
                co_return ToolResult::cancelledResult();
            if (!outcome.line.ok) {
                side->failedRuns.push_back(Json{{"side", side == &b ? "baseline" : "candidate"},
                                                {"run", i},
                                                {"mismatch", toStd(outcome.line.mismatch)}});
                if (side == &b)
                    baselineFailed = true;
            } else if (i >= warmup) {
                side->ms.push_back(outcome.line.ms);
            }
        }
        job->setProgress(i + 1, double(pairs),
                         QStringLiteral("pair %1 of %2%3")
                             .arg(i + 1)
                             .arg(pairs)
                             .arg(i < warmup ? QStringLiteral(" (warm-up)") : QString()));
    }
    deviceLock.release();

    QString verdict;
    QString reason;
    Comparison comparison;
    const bool measured = !baselineFailed && c.failedRuns.empty() && b.ms.size() >= 2 && c.ms.size() >= 2;
    if (baselineFailed) {
        verdict = QStringLiteral("invalid");
        reason = QStringLiteral("the baseline printed ok false in a run");
    } else if (!c.failedRuns.empty()) {
        verdict = QStringLiteral("incorrect");
        reason = QStringLiteral("the candidate printed ok false in a run");
    } else {
        comparison = Statistics::compare(b.ms, c.ms, comparisonOptions);
        verdict = claimedVerdict(comparison.verdict);
        reason = comparison.reason;
    }
    reason = QStringLiteral("uncontracted: ") + reason;
    Json failedRuns = b.failedRuns;
    for (const Json &f : c.failedRuns)
        failedRuns.push_back(f);

    Json r = MeasureSetup::verifyResultHead(b.file, c.file);
    r["target"] = Json();
    r["verdict"] = toStd(verdict);
    r["reason"] = toStd(reason);
    // Issue 41: the ratio of the scripts' own times is a claim, never the verify's speedup.
    r["speedup"] = Json();
    r["claimed_speedup"] = measured && std::isfinite(comparison.speedup) && comparison.speedup > 0
                               ? Json(comparison.speedup)
                               : Json();
    r["speedup_ci95"] = measured ? intervalJson(comparison.ci95) : Json();
    r["speedup_ci99"] = measured ? intervalJson(comparison.ci99) : Json();
    r["rule"] = toStd(Statistics::ruleName(comparisonOptions.rule));
    r["min_effect"] = comparisonOptions.minEffect;
    r["alpha"] = comparisonOptions.alpha;
    r["n"] = int(b.ms.size());
    r["warmup"] = warmup;
    r["adaptive"] = false;
    r["workers_reused"] = Json{{"baseline", false}, {"candidate", false}};
    r["baseline_stats"] = statsJson(b.ms);
    r["candidate_stats"] = statsJson(c.ms);
    markUncontracted(r);
    r["mismatches"] = Json::array();
    r["failed_runs"] = failedRuns;
    r["versions"] = Json::object();
    r["interpreter"] = MeasureSetup::interpreterJson(python);
    r["gpu"] = *gpu;
    r["cwd"] = toStd(cwd);
    r["commands"] = toJson(QStringList{b.runner->commandLine(), c.runner->commandLine()});
    r["warnings"] = toJson(warnings);
    r["started_at"] = toStd(startedAt);
    r["finished_at"] = toStd(MeasureSetup::utcNow());
    r["wall_s"] = wall.nsecsElapsed() / 1e9;

    const SampleStats bs = Statistics::describe(b.ms);
    const SampleStats cs = Statistics::describe(c.ms);
    QString text = QStringLiteral("verify %1 vs %2 (UNCONTRACTED)\n").arg(b.file.given, c.file.given);
    text += QStringLiteral("  baseline  mean %1 ms ± %2 (n %3)\n")
                .arg(bs.mean, 0, 'g', 5)
                .arg(bs.std, 0, 'g', 3)
                .arg(bs.n);
    text += QStringLiteral("  candidate mean %1 ms ± %2 (n %3)\n")
                .arg(cs.mean, 0, 'g', 5)
                .arg(cs.std, 0, 'g', 3)
                .arg(cs.n);
    text +=
        QStringLiteral("  verdict: %1 (%2)%3\n")
            .arg(verdict.toUpper(), reason,
                 measured
                     ? QStringLiteral(", the scripts' own times give %1x").arg(comparison.speedup, 0, 'f', 3)
                     : QString());
    text += QStringLiteral("  %1\n").arg(caveat());
    co_return ToolResult::success(r, text);
}

} // namespace hotkernel
