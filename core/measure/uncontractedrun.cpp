// SPDX-License-Identifier: Apache-2.0
#include "measure/uncontractedrun.h"

#include "base/cancelaware.h"
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
#include <functional>
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

QElapsedTimer startedUncontractedTimer()
{
    QElapsedTimer timer;
    timer.start();
    return timer;
}

// One uncontracted bench's or verify's state, in the handler's frame; its phases take a pointer to
// it (docs/hacking.md, "verify in phases"). The sides, which own the runners, are declared before
// the GPU lock, so that a call that ends early gives the GPU back before its processes are killed,
// as the one coroutine's locals did.
struct UncontractedCall
{
    // Resolves cwd and the scripts named by the keys (bench: one, verify: two); UserError when one
    // cannot be used.
    UncontractedCall(MeasureSession &s, const Json &args, Job &j, const char *first, const char *second)
        : session(&s), arguments(args), job(j), n(args.value("n", DefaultRuns)),
          warmup(args.value("warmup", 1)), startedAt(MeasureSetup::utcNow()),
          wall(startedUncontractedTimer()), cwd(workingDirectory(s, args))
    {
        b.file = scriptFile(s, args, first, cwd);
        sides.push_back(&b);
        if (second) {
            c.file = scriptFile(s, args, second, cwd);
            sides.push_back(&c);
        }
    }
    UncontractedCall(const UncontractedCall &) = delete;
    UncontractedCall &operator=(const UncontractedCall &) = delete;

    MeasureSession *session;
    const Json arguments;
    CancelAware job; // every await of the phases goes through it
    const int n;
    const int warmup;
    const QString startedAt;
    QElapsedTimer wall;
    const QString cwd;
    ComparisonOptions comparisonOptions; // verify's
    Side b;                              // bench's script, verify's baseline
    Side c;                              // verify's candidate
    std::vector<Side *> sides;           // the sides in use, in order
    QStringList warnings{UncontractedRun::caveat()};
    PythonInfo python;
    DeviceLock deviceLock;
    Json gpu;
    Json runs = Json::array();   // bench: the measured runs
    bool baselineFailed = false; // verify: the baseline printed ok false in a run
};

// The scripts hashed (off the main thread: a file may be huge or a FIFO), the interpreter, a runner
// per side, the GPU's snapshot for the result, then the GPU taken for the timed runs (the job is
// told while another process holds it).
QCoro::Task<void> prepareUncontracted(UncontractedCall *call)
{
    UncontractedCall &s = *call;
    QStringList scriptPaths;
    for (const Side *side : s.sides)
        scriptPaths << side->file.path;
    const QStringList scriptHashes = co_await s.job(MeasureSetup::sha256OfFiles(scriptPaths));
    for (qsizetype i = 0; i < qsizetype(s.sides.size()); ++i)
        s.sides[size_t(i)]->file.sha256 = scriptHashes.value(i);

    s.python = co_await s.job(MeasureSetup::startingInterpreter(*s.session, s.job.get()));
    for (Side *side : s.sides)
        side->runner = runnerFor(side->file, s.python, s.cwd, s.arguments, s.job.get());
    s.gpu = co_await s.job(MeasureSetup::gpuSnapshot(*s.session, s.job.get(), &s.warnings));
    const QPointer<Job> job = s.job.pointer();
    const std::function<void(const QString &)> onWait = [job](const QString &message) {
        if (job)
            job->setProgress(0, std::nullopt, message);
    };
    const bool locked =
        co_await s.job(s.deviceLock.acquire(DeviceLock::currentDevice(), s.job.get(), onWait));
    s.job.require(locked);
}

// bench's warm-up runs, then n measured ones; the GPU given back after the last.
QCoro::Task<void> runUncontractedBench(UncontractedCall *call)
{
    UncontractedCall &s = *call;
    for (int i = 0; i < s.warmup + s.n; ++i) {
        const RunOutcome outcome = co_await s.job(s.b.runner->run(i));
        s.job.require(!outcome.cancelled);
        if (!outcome.line.ok)
            throw UserError(QStringLiteral("%1 run %2: the script printed ok false (%3); bench times only "
                                           "runs that pass their own check.")
                                .arg(s.b.file.given)
                                .arg(i)
                                .arg(outcome.line.mismatch));
        s.job->setProgress(i + 1, double(s.n + s.warmup),
                           QStringLiteral("run %1%2: %3 ms")
                               .arg(i)
                               .arg(i < s.warmup ? QStringLiteral(" (warm-up)") : QString())
                               .arg(outcome.line.ms, 0, 'g', 5));
        if (i < s.warmup)
            continue;
        s.b.ms.push_back(outcome.line.ms);
        s.runs.push_back(Json{{"run", i},
                              {"ms", outcome.line.ms},
                              {"line", outcome.line.json},
                              {"wall_s", outcome.wallSeconds}});
    }
    s.deviceLock.release();
}

// verify's pairs in alternating order (b c, c b, ...), as the contracted verify runs them; the GPU
// given back after the last.
QCoro::Task<void> runUncontractedPairs(UncontractedCall *call)
{
    UncontractedCall &s = *call;
    const int pairs = s.warmup + s.n;
    for (int i = 0; i < pairs; ++i) {
        Side *order[2] = {&s.b, &s.c};
        if (i % 2 == 1)
            std::swap(order[0], order[1]);
        for (Side *side : order) {
            const RunOutcome outcome = co_await s.job(side->runner->run(i));
            s.job.require(!outcome.cancelled);
            if (!outcome.line.ok) {
                side->failedRuns.push_back(Json{{"side", side == &s.b ? "baseline" : "candidate"},
                                                {"run", i},
                                                {"mismatch", toStd(outcome.line.mismatch)}});
                if (side == &s.b)
                    s.baselineFailed = true;
            } else if (i >= s.warmup) {
                side->ms.push_back(outcome.line.ms);
            }
        }
        s.job->setProgress(i + 1, double(pairs),
                           QStringLiteral("pair %1 of %2%3")
                               .arg(i + 1)
                               .arg(pairs)
                               .arg(i < s.warmup ? QStringLiteral(" (warm-up)") : QString()));
    }
    s.deviceLock.release();
}

// The result keys bench and verify share after their own, in the order both write them.
void addUncontractedTail(const UncontractedCall &s, Json &r)
{
    r["versions"] = Json::object();
    r["interpreter"] = MeasureSetup::interpreterJson(s.python);
    r["gpu"] = s.gpu;
    r["cwd"] = toStd(s.cwd);
    QStringList commands;
    for (const Side *side : s.sides)
        commands << side->runner->commandLine();
    r["commands"] = toJson(commands);
    r["warnings"] = toJson(s.warnings);
    r["started_at"] = toStd(s.startedAt);
    r["finished_at"] = toStd(MeasureSetup::utcNow());
    r["wall_s"] = s.wall.nsecsElapsed() / 1e9;
}

ToolResult uncontractedBenchResult(const UncontractedCall &s)
{
    Json r = MeasureSetup::benchResultHead(s.b.file);
    r["target"] = Json();
    r["n"] = int(s.b.ms.size());
    r["warmup"] = s.warmup;
    r["worker_reused"] = false;
    r["stats"] = statsJson(s.b.ms);
    r["runs"] = s.runs;
    markUncontracted(r);
    r["achieved"] = Json{{"tflops", Json()}, {"gbps", Json()}};
    addUncontractedTail(s, r);
    const SampleStats stats = Statistics::describe(s.b.ms);
    const QString text = QStringLiteral("bench %1 (UNCONTRACTED)\n  mean %2 ms ± %3   min %4 ms   n %5 + %6 "
                                        "warm-up\n  %7\n")
                             .arg(s.b.file.given)
                             .arg(stats.mean, 0, 'g', 5)
                             .arg(stats.std, 0, 'g', 3)
                             .arg(stats.min, 0, 'g', 5)
                             .arg(stats.n)
                             .arg(s.warmup)
                             .arg(UncontractedRun::caveat());
    return ToolResult::success(r, text);
}

// verify's verdict: invalid or incorrect when a side printed ok false, else the statistics' verdict
// on the scripts' own times, as a claim.
struct UncontractedVerdict
{
    QString verdict;
    QString reason;
    Comparison comparison;
    bool measured = false;
};

UncontractedVerdict decideUncontracted(const UncontractedCall &s)
{
    UncontractedVerdict v;
    v.measured = !s.baselineFailed && s.c.failedRuns.empty() && s.b.ms.size() >= 2 && s.c.ms.size() >= 2;
    if (s.baselineFailed) {
        v.verdict = QStringLiteral("invalid");
        v.reason = QStringLiteral("the baseline printed ok false in a run");
    } else if (!s.c.failedRuns.empty()) {
        v.verdict = QStringLiteral("incorrect");
        v.reason = QStringLiteral("the candidate printed ok false in a run");
    } else {
        v.comparison = Statistics::compare(s.b.ms, s.c.ms, s.comparisonOptions);
        v.verdict = claimedVerdict(v.comparison.verdict);
        v.reason = v.comparison.reason;
    }
    v.reason = QStringLiteral("uncontracted: ") + v.reason;
    return v;
}

QString uncontractedVerifyText(const UncontractedCall &s, const UncontractedVerdict &v)
{
    const SampleStats bs = Statistics::describe(s.b.ms);
    const SampleStats cs = Statistics::describe(s.c.ms);
    QString text = QStringLiteral("verify %1 vs %2 (UNCONTRACTED)\n").arg(s.b.file.given, s.c.file.given);
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
            .arg(
                v.verdict.toUpper(), v.reason,
                v.measured
                    ? QStringLiteral(", the scripts' own times give %1x").arg(v.comparison.speedup, 0, 'f', 3)
                    : QString());
    text += QStringLiteral("  %1\n").arg(UncontractedRun::caveat());
    return text;
}

ToolResult uncontractedVerifyResult(const UncontractedCall &s)
{
    const UncontractedVerdict v = decideUncontracted(s);
    const ComparisonOptions &options = s.comparisonOptions;
    Json failedRuns = s.b.failedRuns;
    for (const Json &f : s.c.failedRuns)
        failedRuns.push_back(f);

    Json r = MeasureSetup::verifyResultHead(s.b.file, s.c.file);
    r["target"] = Json();
    r["verdict"] = toStd(v.verdict);
    r["reason"] = toStd(v.reason);
    // Issue 41: the ratio of the scripts' own times is a claim, never the verify's speedup.
    r["speedup"] = Json();
    r["claimed_speedup"] = v.measured && std::isfinite(v.comparison.speedup) && v.comparison.speedup > 0
                               ? Json(v.comparison.speedup)
                               : Json();
    r["speedup_ci95"] = v.measured ? intervalJson(v.comparison.ci95) : Json();
    r["speedup_ci99"] = v.measured ? intervalJson(v.comparison.ci99) : Json();
    r["rule"] = toStd(Statistics::ruleName(options.rule));
    r["min_effect"] = options.minEffect;
    r["alpha"] = options.alpha;
    r["n"] = int(s.b.ms.size());
    r["warmup"] = s.warmup;
    r["adaptive"] = false;
    r["workers_reused"] = Json{{"baseline", false}, {"candidate", false}};
    r["baseline_stats"] = statsJson(s.b.ms);
    r["candidate_stats"] = statsJson(s.c.ms);
    markUncontracted(r);
    r["mismatches"] = Json::array();
    r["failed_runs"] = failedRuns;
    addUncontractedTail(s, r);
    return ToolResult::success(r, uncontractedVerifyText(s, v));
}

ComparisonOptions uncontractedComparison(const Json &arguments)
{
    ComparisonOptions options;
    const QString ruleName = stringField(arguments, "rule", QStringLiteral("welch"));
    if (const auto rule = Statistics::ruleFromName(ruleName))
        options.rule = *rule;
    options.minEffect = arguments.value("min_effect", 0.01);
    return options;
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

QCoro::Task<ToolResult> UncontractedRun::bench(MeasureSession &session, Json arguments, Job &job)
{
    UncontractedCall call(session, arguments, job, "script", nullptr); // UserError: cwd or script
    UncontractedCall *phaseCall = &call;                               // a named argument (docs/hacking.md)
    bool cancelled = false;
    try {
        co_await call.job(prepareUncontracted(phaseCall));
        co_await call.job(runUncontractedBench(phaseCall));
    } catch (const JobCancelled &) {
        cancelled = true;
    }
    if (cancelled)
        co_return ToolResult::cancelledResult();
    co_return uncontractedBenchResult(call);
}

QCoro::Task<ToolResult> UncontractedRun::verify(MeasureSession &session, Json arguments, Job &job)
{
    if (arguments.value("n", DefaultRuns) < 2)
        throw UserError(QStringLiteral("n must be at least 2 (the spread needs two runs per side)."));
    const ComparisonOptions comparisonOptions = uncontractedComparison(arguments);
    UncontractedCall call(session, arguments, job, "baseline", "candidate"); // UserError: cwd or scripts
    call.comparisonOptions = comparisonOptions;
    UncontractedCall *phaseCall = &call; // a named argument (docs/hacking.md)
    bool cancelled = false;
    try {
        co_await call.job(prepareUncontracted(phaseCall));
        co_await call.job(runUncontractedPairs(phaseCall));
    } catch (const JobCancelled &) {
        cancelled = true;
    }
    if (cancelled)
        co_return ToolResult::cancelledResult();
    co_return uncontractedVerifyResult(call);
}

} // namespace hotkernel
