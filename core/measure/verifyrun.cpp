// SPDX-License-Identifier: Apache-2.0
#include "measure/verifyrun.h"

#include "base/job.h"
#include "base/usererror.h"
#include "inspect/gpuprobe.h"
#include "measure/devicelock.h"
#include "measure/gpusharing.h"
#include "measure/importedsources.h"
#include "measure/judgedoutputs.h"
#include "measure/measuresession.h"
#include "measure/measuresetup.h"
#include "measure/pairchecks.h"
#include "measure/runisolation.h"
#include "measure/sessionpeers.h"
#include "measure/statistics.h"
#include "measure/workerscriptrunner.h"
#include "process/runtimedir.h"
#include "process/writeconfinement.h"
#include "remote/remotehost.h"

#include <QCoreApplication>
#include <QCoroFuture>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtConcurrentRun>

#include <cmath>

namespace hotkernel {

namespace {

struct VerifyOptions
{
    std::optional<int> n; // fixed n; empty = adaptive
    int warmup = 1;
    std::chrono::milliseconds timeout{std::chrono::seconds(300)};
    bool fresh = false;
    ComparisonOptions comparison;
    AdaptiveOptions adaptive;
};

VerifyOptions parseOptions(const Json &a)
{
    VerifyOptions o;
    if (a.contains("n") && a["n"].is_number_integer())
        o.n = a["n"].get<int>();
    if (a.contains("warmup") && a["warmup"].is_number_integer())
        o.warmup = a["warmup"].get<int>();
    if (a.contains("timeout") && a["timeout"].is_number())
        o.timeout = std::chrono::milliseconds(qint64(a["timeout"].get<double>() * 1000.0));
    o.fresh = a.value("fresh", false);
    const QString rule = stringField(a, "rule", QStringLiteral("welch"));
    const auto parsed = Statistics::ruleFromName(rule);
    if (!parsed)
        throw UserError(QStringLiteral("rule %1 is not known; use welch (the default) or seed.").arg(rule));
    o.comparison.rule = *parsed;
    o.comparison.minEffect = a.value("min_effect", 0.01);
    o.adaptive.ciWidth = a.value("ci_width", 0.01);
    o.adaptive.maxPairs = a.value("max_pairs", 30);
    o.adaptive.maxSeconds = a.value("max_seconds", 120.0);
    if (o.n && *o.n < 2)
        throw UserError(QStringLiteral(
            "n must be at least 2 (the spread needs two runs per side); leave it out for adaptive n."));
    if (o.adaptive.maxPairs < o.adaptive.minPairs)
        o.adaptive.minPairs = std::max(2, o.adaptive.maxPairs);
    return o;
}

Json statsJson(const SampleStats &s, const std::vector<double> &samples)
{
    if (s.n == 0)
        return Json{{"n", 0},
                    {"mean_ms", nullptr},
                    {"std_ms", nullptr},
                    {"min_ms", nullptr},
                    {"samples_ms", Json::array()}};
    return Json{
        {"n", s.n}, {"mean_ms", s.mean}, {"std_ms", s.std}, {"min_ms", s.min}, {"samples_ms", samples}};
}

Json intervalJson(const std::optional<Interval> &i)
{
    if (!i)
        return nullptr;
    return Json::array({i->low, i->high});
}

struct Side
{
    const char *name;
    ScriptFile file;
    PreparedRunner prepared;
    std::vector<double> ms;
    RunLine first;
    bool haveFirst = false;
};

// Where the candidate writes its judged outputs for the judge outside its process: a fresh 0700
// directory in the candidate's scratch, the one place a confined worker may write (issue 41), else
// under the runtime directory (else the temp folder); removed with the verify.
std::unique_ptr<QTemporaryDir> makeJudgeDir(const QString &scratch)
{
    QString runtime = scratch.isEmpty() ? RuntimeDir::path() : scratch;
    if (runtime.isEmpty())
        runtime = QDir::tempPath();
    auto dir = std::make_unique<QTemporaryDir>(QDir(runtime).filePath(QStringLiteral("judge-XXXXXX")));
    if (!dir->isValid())
        throw UserError(
            QStringLiteral("cannot create a directory for the judged outputs in %1 (%2); free some "
                           "space there or point TMPDIR (or XDG_RUNTIME_DIR) at a writable folder")
                .arg(QDir::toNativeSeparators(runtime), dir->errorString()));
    QFile::setPermissions(dir->path(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return dir;
}

// The judge directory, the forced events timer and the bracket hold for this verify only: a kept
// worker serves later calls, which have no judge and whose other side may be capturable.
struct PerVerifySettings
{
    ScriptRunner *baseline;
    ScriptRunner *candidate;
    ~PerVerifySettings()
    {
        candidate->setJudgeDir({});
        for (ScriptRunner *r : {baseline, candidate}) {
            r->setEventsTimer(false);
            r->setBracket(false);
        }
    }
};

} // namespace

QCoro::Task<ToolResult> VerifyRun::run(MeasureSession &session, Json arguments, Job &jobRef)
{
    QPointer<Job> job(&jobRef);
    const VerifyOptions o = parseOptions(arguments);
    const QString startedAt = MeasureSetup::utcNow();
    // Issue 41: files changed after this moment were changed during the verify (ImportedSources).
    const qint64 startedNs = QDateTime::currentMSecsSinceEpoch() * 1000000;
    QElapsedTimer wall;
    wall.start();

    Side b{"baseline", MeasureSetup::script(session, arguments, "baseline"), {}, {}, {}, false};
    Side c{"candidate", MeasureSetup::script(session, arguments, "candidate"), {}, {}, {}, false};
    const QString shippedContract = MeasureSetup::shippedContractSha256();
    QStringList warnings;
    // The scripts and the contract next to each, hashed before the runs and again after them.
    QStringList watchedPaths;
    for (const Side *side : {&b, &c})
        watchedPaths << side->file.path
                     << QFileInfo(side->file.path).dir().filePath(QStringLiteral("_hotkernel_contract.py"));
    const QStringList watchedBefore = co_await MeasureSetup::sha256OfFiles(watchedPaths);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    b.file.sha256 = watchedBefore.value(0);
    c.file.sha256 = watchedBefore.value(2);

    const QStringList hostFiles{b.file.path, c.file.path};
    const bool hostReady = co_await MeasureSetup::prepareHost(session, hostFiles, job);
    if (!job || !hostReady || job->isCancelled())
        co_return ToolResult::cancelledResult();
    co_await MeasureSetup::prepareRemoteWitness(session, job);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    const QPointer<RemoteHost> remote(session.remote());
    PythonInfo python = co_await MeasureSetup::startingInterpreter(session, job);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();

    // Issue 41: the floor's calibrations are read before any worker of this verify runs a line of
    // the scripts, so a candidate cannot plant the file its floor is computed from.
    const QString workRoot = session.workDir().root();
    const CalibrationSnapshot calibrations = co_await MeasureSetup::calibrations(workRoot);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();

    // Unused by fresh processes; judged anyway, since every co_await here runs unconditionally.
    std::vector<std::pair<QString, QString>> roles; // a named argument (see docs/hacking.md)
    roles.emplace_back(QStringLiteral("baseline"), b.file.path);
    roles.emplace_back(QStringLiteral("candidate"), c.file.path);
    const std::vector<QByteArray> keys =
        co_await MeasureSetup::judgeWorkers(session, std::move(roles), python);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    // Both start now and import torch in parallel; the GPU snapshot overlaps with that too.
    b.prepared = MeasureSetup::prepare(session, QStringLiteral("baseline"), b.file, python, o.fresh,
                                       o.timeout, job, keys[0]);
    c.prepared = MeasureSetup::prepare(session, QStringLiteral("candidate"), c.file, python, o.fresh,
                                       o.timeout, job, keys[1]);
    MeasureSetup::WorkerRelease release(session, {&b.prepared, &c.prepared});
    // On a remote host the candidate writes its judged outputs there, in its scratch (the one place
    // it may write: issue 41), the baseline judges them there, and a copy comes here for the checks
    // made before that (docs/remote.md).
    QString remoteJudgeDir;
    if (remote) {
        remoteJudgeDir = co_await remote->makePrivateDir(job, QStringLiteral("judge"),
                                                         c.prepared.runner->remoteScratchDir());
        if (!job || remoteJudgeDir.isEmpty() || job->isCancelled())
            co_return ToolResult::cancelledResult();
    }
    RemoteHost::FolderRemoval removeRemoteJudgeDir{remote, remoteJudgeDir};
    const std::unique_ptr<QTemporaryDir> judgeDir = makeJudgeDir(c.prepared.runner->scratchDir());
    c.prepared.runner->setJudgeDir(remote ? remoteJudgeDir : judgeDir->path());
    b.prepared.runner->setJudgeDir({});
    b.prepared.runner->setEventsTimer(false);
    c.prepared.runner->setEventsTimer(false);
    b.prepared.runner->setBracket(true);
    c.prepared.runner->setBracket(true);
    const PerVerifySettings perVerify{b.prepared.runner.get(), c.prepared.runner.get()};
    python = co_await MeasureSetup::confirmedInterpreter(session, python, job, release);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();

    const QString mode = o.fresh ? QStringLiteral("fresh") : QStringLiteral("warm");
    job->setProgress(0, std::nullopt,
                     o.fresh
                         ? QStringLiteral("fresh mode: one process per run")
                         : QStringLiteral("starting workers (baseline %1, candidate %2)")
                               .arg(b.prepared.reused ? QStringLiteral("reused") : QStringLiteral("new"),
                                    c.prepared.reused ? QStringLiteral("reused") : QStringLiteral("new")));
    Json gpu = co_await MeasureSetup::gpuSnapshot(session, job, &warnings);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    // Issue 23: the baseline's warm-up run overlaps the candidate's start (a spare loading the
    // edited script and compiling its kernels). Only a warm-up run may: its time counts for nothing.
    // With no warm-up pair both sides are ready before the first run.
    const bool overlapWarmup = o.warmup > 0;
    bool candidateReady = false;
    for (Side *side : {&b, &c}) {
        if (side == &c && overlapWarmup)
            break;
        const bool ready = co_await side->prepared.runner->waitReady();
        if (!job || !ready || job->isCancelled())
            co_return ToolResult::cancelledResult();
        candidateReady = side == &c;
    }

    // Both workers started (torch imported, kernel built); until the candidate's start is waited for
    // in the first pair, the baseline's.
    double readyAt = wall.nsecsElapsed() / 1e9;
    double lockWait = 0;
    double lockedAt = 0;
    DeviceLock deviceLock;
    std::shared_ptr<QProcess> remoteLock; // a remote host's lock is the host's (docs/remote.md)
    bool locked = false;
    // Only a target that times on the GPU takes the GPU lock; CPU targets share nothing (issue 18).
    const auto needsLock = [&b, &c, &candidateReady] {
        const auto onGpu = [](const Side &side) {
            return DeviceLock::needsLock(side.prepared.worker ? side.prepared.worker->readyLine() : Json());
        };
        return onGpu(b) || (candidateReady && onGpu(c));
    };
    if (needsLock()) {
        const double waitFrom = wall.nsecsElapsed() / 1e9;
        locked = co_await MeasureSetup::takeGpuLock(deviceLock, remoteLock, remote, job, o.timeout);
        if (!locked)
            co_return ToolResult::cancelledResult();
        lockedAt = wall.nsecsElapsed() / 1e9;
        lockWait += lockedAt - waitFrom;
    }
    // Issue 42: other sessions of this user say which processes on the card are theirs; their idle
    // spares are asked to end for the timed runs (they start again after that session's next
    // bench or verify).
    std::vector<GpuSharing::PeerProcess> peers;
    if (locked && !remote) {
        // Named arguments: no temporary in a co_await operand (docs/hacking.md).
        const QStringList sockets = SessionPeers::sockets();
        const QString workersMethod = QString::fromLatin1(SessionPeers::WorkersMethod);
        const std::vector<Json> answers = co_await SessionPeers::ask(sockets, workersMethod);
        if (!job || job->isCancelled())
            co_return ToolResult::cancelledResult();
        peers = SessionPeers::processes(answers, QCoreApplication::applicationPid());
        std::vector<GpuSharing::Other> onCard = GpuSharing::others(gpu);
        GpuSharing::attribute(onCard, peers);
        const QStringList holdingSpares = GpuSharing::socketsWithSpares(onCard);
        if (!holdingSpares.isEmpty()) {
            const QString releaseMethod = QString::fromLatin1(SessionPeers::ReleaseSparesMethod);
            const std::vector<Json> released = co_await SessionPeers::ask(holdingSpares, releaseMethod);
            if (!job || job->isCancelled())
                co_return ToolResult::cancelledResult();
            warnings.append(GpuSharing::releasedSpares(onCard, released));
        }
    }
    double measuringAt = wall.nsecsElapsed() / 1e9;
    // The same moment on the system clock, which NVML stamps its per-process samples with.
    qint64 measuringSinceUs = QDateTime::currentMSecsSinceEpoch() * 1000;
    // --- the pairs ---
    QString verdict;
    QString reason;
    QStringList mismatches;
    Json failedRuns = Json::array();
    const std::optional<double> total = o.n ? std::optional<double>(2.0 * (o.warmup + *o.n)) : std::nullopt;
    Comparison comparison;
    int pair = 0;
    int runsDone = 0;
    Json judgeSeeds = Json::array();
    QString witnessUnavailable;
    // Pairs re-run because a bracket disagreed (at most kBracketRetries, then invalid).
    constexpr int kBracketRetries = 2;
    int bracketRetries = 0;
    if (remote)
        warnings.append(QStringLiteral("the bracket (hotkernel's clock around each run's bracketed replays, "
                                       "protocol 5) is not held against the runs on a remote host: it "
                                       "would time the connection too"));
    Json witness; // the last pair's witness, per side
    Json witnessRatios = {{"baseline", Json::object()}, {"candidate", Json::object()}}; // measured pairs
    int judgedRuns = 0;
    QString judgedTransport; // how the candidate's last judged outputs reached the judge
    double judgeSeconds = 0;
    // Where each side's runs spend their time (the contract's steps_ms, summed; "run_wall" is the
    // run as this process saw it, request to line): issue 19's cost, measured, not guessed.
    Json steps = Json{{"baseline", Json::object()}, {"candidate", Json::object()}, {"judge", Json::object()}};
    const auto addSteps = [&steps](const char *who, const Json &line, double wallSeconds) {
        Json &into = steps[who];
        const auto add = [&into](const std::string &name, double seconds) {
            into[name] = into.value(name, 0.0) + seconds;
        };
        if (const auto it = line.find("steps_ms"); it != line.end() && it->is_object())
            for (const auto &[name, ms] : it->items())
                if (ms.is_number())
                    add(name, ms.get<double>() / 1e3);
        add("run_wall", wallSeconds);
    };
    // Issue 19: a side that cannot be graph-captured is timed with events; from the first such pair
    // on both sides are, and that pair's times are dropped (Json null: one timer throughout).
    Json eventsForBothFrom;
    QString lastTimers[2];
    RunIsolation isolation(*b.prepared.runner, *c.prepared.runner);
    while (true) {
        // The measured phase starts with the first pair whose times count (a pair dropped for its
        // timers does not).
        if (pair >= o.warmup && b.ms.empty()) {
            measuringAt = wall.nsecsElapsed() / 1e9;
            measuringSinceUs = QDateTime::currentMSecsSinceEpoch() * 1000;
        }
        // 53 bits: exact in every JSON reader. Both sides get the same seed, so their judged
        // inputs must hash alike.
        const quint64 judgeSeed = QRandomGenerator::system()->generate64() >> 11;
        judgeSeeds.push_back(judgeSeed);
        b.prepared.runner->setJudgeSeed(judgeSeed);
        c.prepared.runner->setJudgeSeed(judgeSeed);
        const bool baselineFirst = pair % 2 == 0; // b c, c b, b c, ...: going second is nobody's bias
        Side *order[2] = {baselineFirst ? &b : &c, baselineFirst ? &c : &b};
        RunLine lines[2];
        RunOutcome outcomes[2];
        for (int k = 0; k < 2; ++k) {
            Side *side = order[k];
            if (side == &c && !candidateReady) { // the overlapped start (above) ends here
                const bool ready = co_await c.prepared.runner->waitReady();
                if (!job || !ready || job->isCancelled())
                    co_return ToolResult::cancelledResult();
                candidateReady = true;
                readyAt = wall.nsecsElapsed() / 1e9;
                if (!locked && needsLock()) {
                    locked =
                        co_await MeasureSetup::takeGpuLock(deviceLock, remoteLock, remote, job, o.timeout);
                    if (!locked)
                        co_return ToolResult::cancelledResult();
                    lockedAt = wall.nsecsElapsed() / 1e9;
                    lockWait += lockedAt - readyAt;
                }
            }
            // Issue 41: the other side stands still while this one runs; the card is read around it.
            QFuture<void> standing =
                isolation.standStill(side == &c, side == &c || candidateReady, locked && !remote);
            co_await standing;
            if (!job || job->isCancelled())
                co_return ToolResult::cancelledResult();
            const RunOutcome outcome = co_await side->prepared.runner->run(pair);
            if (!job || outcome.cancelled || job->isCancelled())
                co_return ToolResult::cancelledResult();
            QFuture<void> reading = isolation.readRun();
            co_await reading;
            if (!job || job->isCancelled())
                co_return ToolResult::cancelledResult();
            isolation.finishRun();
            ++runsDone;
            job->setProgress(runsDone, total,
                             QStringLiteral("%1 run %2%3: %4 ms")
                                 .arg(QLatin1String(side->name))
                                 .arg(pair)
                                 .arg(pair < o.warmup ? QStringLiteral(" (warm-up)") : QString())
                                 .arg(outcome.line.ok ? QString::number(outcome.line.ms, 'g', 5)
                                                      : QStringLiteral("check failed")));
            // A contract-level failure (bad definition, reference raised, no GPU) measured nothing.
            if (const QString error = stringField(outcome.line.json, "error"); !error.isEmpty())
                throw UserError(QStringLiteral("%1 run %2: the contract reported an error: %3")
                                    .arg(side->file.given)
                                    .arg(pair)
                                    .arg(error));
            lines[side == &b ? 0 : 1] = outcome.line;
            if (pair == 0 && !side->prepared.reused && side->prepared.worker) {
                // A worker new to this verify: its start's steps (the script's imports, the inputs,
                // the first call), as "start_*".
                const Json &ready = side->prepared.worker->readyLine();
                if (const auto it = ready.find("steps_ms"); it != ready.end() && it->is_object())
                    for (const auto &[name, ms] : it->items())
                        if (ms.is_number())
                            steps[side == &b ? "baseline" : "candidate"]["start_" + name] =
                                ms.get<double>() / 1e3;
            }
            addSteps(side == &b ? "baseline" : "candidate", outcome.line.json, outcome.wallSeconds);
            outcomes[side == &b ? 0 : 1] = outcome;
            if (!side->haveFirst) {
                side->first = outcome.line;
                side->haveFirst = true;
            }
        }
        const RunLine &lb = lines[0];
        const RunLine &lc = lines[1];
        // Invalid before incorrect: a changed contract usually also fails the check.
        mismatches = RunLineParser::identityMismatches(lb.json, lc.json);
        if (mismatches.isEmpty() && pair > 0)
            mismatches =
                RunLineParser::identityMismatches(b.first.json, lb.json); // a side changed between runs
        if (!shippedContract.isEmpty()) {
            for (const RunLine *l : {&lb, &lc}) {
                const QString ran = stringField(l->json, "contract_sha256");
                if (ran != shippedContract && mismatches.isEmpty())
                    mismatches.append(
                        QStringLiteral(
                            "contract_sha256: the %1 ran a contract (%2) that differs from the one "
                            "this hotkernel ships (%3); re-vendor it with `hotkernel new --force`")
                            .arg(l == &lb ? QStringLiteral("baseline") : QStringLiteral("candidate"),
                                 ran.isEmpty() ? QStringLiteral("none reported") : ran.left(12),
                                 shippedContract.left(12)));
            }
        }
        if (!mismatches.isEmpty()) {
            verdict = QStringLiteral("invalid");
            reason = QStringLiteral("the two scripts do not measure the same thing: ") + mismatches.first();
            break;
        }
        if (const QString why = PairChecks::untrusted(lb, lc, pair, judgeSeed); !why.isEmpty()) {
            verdict = QStringLiteral("invalid");
            reason = why;
            mismatches.append(why);
            break;
        }
        // A side that failed its own check (its fn raised, or its outputs did not match) says why
        // first: such a run may never have reached the timed or witnessed replays, and "not
        // witnessed" would hide the real reason. Saying it cannot help a candidate: it loses.
        if (!lb.ok) {
            verdict = QStringLiteral("invalid");
            mismatches.append(
                QStringLiteral("baseline run %1 failed its own check: %2").arg(pair).arg(lb.mismatch));
            reason = QStringLiteral("the baseline fails its own correctness check (run %1: %2)")
                         .arg(pair)
                         .arg(lb.mismatch);
            break;
        }
        if (!lc.ok) {
            verdict = QStringLiteral("incorrect");
            failedRuns.push_back(
                Json{{"side", "candidate"}, {"run", pair}, {"mismatch", toStd(lc.mismatch)}});
            reason = QStringLiteral("the candidate's output does not match the reference (run %1: %2)")
                         .arg(pair)
                         .arg(lc.mismatch);
            break;
        }
        if (const QString why = PairChecks::witnessed(outcomes[0], outcomes[1], pair, &witnessUnavailable,
                                                      pair < o.warmup ? WitnessTrace::Time::Ignored
                                                                      : WitnessTrace::Time::Compared);
            !why.isEmpty()) {
            verdict = QStringLiteral("invalid");
            reason = why;
            mismatches.append(why);
            break;
        }
        // Protocol 5: a bracket that disagrees is re-run a few times (a machine busy elsewhere can
        // hold a worker between its replays), then the verify is invalid; a warm-up pair's start
        // overlaps the other side's (issue 23) and is not held to it. Not on a remote host: this
        // clock would time the connection too, so the bounds measured beside the card do not hold.
        if (pair >= o.warmup && !remote) {
            QString why = PairChecks::bracketed(outcomes[0], QStringLiteral("baseline"), pair);
            if (why.isEmpty())
                why = PairChecks::bracketed(outcomes[1], QStringLiteral("candidate"), pair);
            // Events out of order are the process's doing, never a busy machine's: no second try.
            const bool broken = !outcomes[0].bracketFault.isEmpty() || !outcomes[1].bracketFault.isEmpty();
            if (!why.isEmpty() && !broken && bracketRetries < kBracketRetries) {
                ++bracketRetries;
                warnings.append(QStringLiteral("run %1 was measured again: %2").arg(pair).arg(why));
                ++pair;
                continue;
            }
            if (!why.isEmpty()) {
                verdict = QStringLiteral("invalid");
                reason = why;
                mismatches.append(why);
                break;
            }
        }
        witness = Json{{"baseline", PairChecks::witnessJson(outcomes[0])},
                       {"candidate", PairChecks::witnessJson(outcomes[1])}};
        if (pair >= o.warmup) {
            PairChecks::addWitnessRatios(witnessRatios["baseline"], outcomes[0]);
            PairChecks::addWitnessRatios(witnessRatios["candidate"], outcomes[1]);
        }
        // Protocol 4: the candidate's ok is its own process's word. Its judged outputs are judged
        // again by the baseline worker, which never imported the candidate; that answer decides.
        const QString judgedPath = QDir(judgeDir->path()).filePath(JudgedOutputsParser::fileName(pair));
        QString judgedOn = judgedPath; // where the baseline reads it
        if (remote) {
            judgedOn = remoteJudgeDir + QLatin1Char('/') + JudgedOutputsParser::fileName(pair);
            QFile::remove(judgedPath);
            co_await remote->fetch(judgedOn, judgedPath, job); // when it is missing, read() says so
            if (!job || job->isCancelled())
                co_return ToolResult::cancelledResult();
        }
        QString unusable;
        const std::optional<JudgedHeader> judgedHeader = JudgedOutputsParser::read(
            judgedPath, JudgedExpectation{pair, judgeSeed, stringField(lb.json, "judge_inputs_sha256")},
            &unusable);
        if (judgedHeader)
            judgedTransport = judgedHeader->transport;
        if (!judgedHeader) {
            verdict = QStringLiteral("invalid");
            reason = QStringLiteral(
                         "the candidate's run %1 left no judged outputs that the judge outside its process "
                         "can use (%2: %3); the contract writes them after the judged replay, so "
                         "something in the candidate's process changed or removed them")
                         .arg(pair)
                         .arg(QDir::toNativeSeparators(judgedPath), unusable);
            mismatches.append(reason);
            break;
        }
        const JudgeOutcome judged = co_await b.prepared.runner->judge(pair, judgedOn);
        if (!job || judged.cancelled || job->isCancelled())
            co_return ToolResult::cancelledResult();
        ++judgedRuns;
        judgeSeconds += judged.wallSeconds;
        addSteps("judge", judged.answer.json, judged.wallSeconds);
        QFile::remove(judgedPath);
        if (!judged.answer.invalid.isEmpty()) {
            verdict = QStringLiteral("invalid");
            reason = QStringLiteral(
                         "the baseline, judging the candidate's run %1 outside the candidate's process, "
                         "cannot use its judged outputs: %2")
                         .arg(pair)
                         .arg(judged.answer.invalid);
            mismatches.append(reason);
            break;
        }
        if (!judged.answer.ok) {
            verdict = QStringLiteral("incorrect");
            failedRuns.push_back(Json{{"side", "candidate"},
                                      {"run", pair},
                                      {"mismatch", toStd(judged.answer.mismatch)},
                                      {"judged_by", "baseline"}});
            reason =
                QStringLiteral("the candidate's output does not match the reference, judged by the baseline "
                               "outside the candidate's process (run %1: %2); the candidate's own check "
                               "said ok, so something in its process changed the check or the reference")
                    .arg(pair)
                    .arg(judged.answer.mismatch);
            break;
        }
        lastTimers[0] = lb.timer;
        lastTimers[1] = lc.timer;
        if (const QString why = PairChecks::differentTimers(lb, lc); !why.isEmpty()) {
            if (!eventsForBothFrom.is_null()) {
                verdict = QStringLiteral("invalid");
                reason =
                    QStringLiteral("both sides were asked for the events timer from run %1 on, but run %2 "
                                   "still reports the baseline's %3 timer and the candidate's %4; "
                                   "re-vendor the contract with `hotkernel new --force`")
                        .arg(eventsForBothFrom.get<int>())
                        .arg(pair)
                        .arg(lb.timer, lc.timer);
                mismatches.append(reason);
                break;
            }
            eventsForBothFrom = pair + 1;
            warnings.append(
                QStringLiteral("%1, so both sides were timed with CUDA events around a plain block "
                               "(which includes launch overhead) from run %2 on; run %3's "
                               "times, from different timers, were dropped")
                    .arg(why)
                    .arg(pair + 1)
                    .arg(pair));
            b.prepared.runner->setEventsTimer(true);
            c.prepared.runner->setEventsTimer(true);
            ++pair;
            continue;
        }
        if (!isolation.judgePair(pair, pair >= o.warmup).isEmpty()) {
            ++pair; // dropped (run_conditions names it); another pair takes its place
            continue;
        }
        if (pair >= o.warmup) {
            // The GPU's account of the timed replays where it was witnessed (protocol 5): what the
            // worker printed was only held against it.
            b.ms.push_back(PairChecks::timeOf(outcomes[0]));
            c.ms.push_back(PairChecks::timeOf(outcomes[1]));
        }
        ++pair;
        const int measured = int(b.ms.size());
        if (measured == 0)
            continue;
        comparison = Statistics::compare(b.ms, c.ms, o.comparison);
        if (o.n) {
            if (measured >= *o.n)
                break;
        } else if (!Statistics::needsMorePairs(comparison, measured, wall.nsecsElapsed() / 1e9 - measuringAt,
                                               o.adaptive)) {
            break;
        }
    }
    // Another user's process on the card (GPU locks are per user) during the timed runs: seen
    // before them or at their end.
    std::vector<GpuSharing::Other> sharedWith;
    std::vector<GpuSharing::Other> idleOnCard;
    if (locked) {
        sharedWith = GpuSharing::others(gpu);
        const Json after = co_await MeasureSetup::gpuSnapshot(session, job, nullptr);
        if (!job || job->isCancelled())
            co_return ToolResult::cancelledResult();
        GpuSharing::merge(sharedWith, GpuSharing::others(after));
        GpuSharing::attribute(sharedWith, peers);
        // Issue 42: a context that computed nothing during the timed runs (another session's idle
        // spare workers) shared memory, not the SMs.
        if (!sharedWith.empty() && !remote) {
            const Json activity = co_await GpuProbe::processUtilization(measuringSinceUs, job);
            if (!job || job->isCancelled())
                co_return ToolResult::cancelledResult();
            GpuSharing::addActivity(sharedWith, activity);
            sharedWith = GpuSharing::computing(sharedWith, &idleOnCard);
        }
    }
    deviceLock.release();
    remoteLock.reset();
    if (remote) { // waited for: a CLI process exits right after, before a removeLater() could run
        co_await remote->remove(remoteJudgeDir, job);
        removeRemoteJudgeDir.path.clear();
        if (!job || job->isCancelled())
            co_return ToolResult::cancelledResult();
    }
    // A script, or the contract next to it, rewritten while it ran: the runs measured something
    // else than the files the result names.
    // Hashed off the main thread: a script may have become a FIFO, a device or a huge file (issue 39).
    const QStringList watchedAfter = co_await MeasureSetup::sha256OfFiles(watchedPaths);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    for (int k = 0; k < watchedPaths.size(); ++k) {
        const QString &path = watchedPaths[k];
        if (watchedAfter.value(k) != watchedBefore.value(k) && verdict != QLatin1String("invalid")) {
            verdict = QStringLiteral("invalid");
            reason =
                QStringLiteral("%1 changed on disk during the verify, so the runs measured another file "
                               "than the one this result names: run verify again and leave the files alone")
                    .arg(QDir::toNativeSeparators(path));
            mismatches.append(reason);
        }
    }
    // Issue 41: every file either worker imported (the baseline's --from module included), as the
    // workers reported them, against the disk now; hashed off the main thread.
    std::map<QString, QByteArray> imported;
    QStringList scratchDirs;
    for (const Side *side : {&b, &c}) {
        if (side->prepared.worker)
            for (const auto &[path, sha] : side->prepared.worker->sources())
                imported.try_emplace(path, sha);
        scratchDirs << side->prepared.runner->scratchDir();
    }
    const QString importChange =
        co_await QtConcurrent::run(&ImportedSources::changed, imported, scratchDirs, startedNs);
    if (!job || job->isCancelled())
        co_return ToolResult::cancelledResult();
    if (!importChange.isEmpty() && verdict != QLatin1String("invalid")) {
        verdict = QStringLiteral("invalid");
        reason = importChange + QStringLiteral(": run verify again and leave the files alone while it runs");
        mismatches.append(reason);
    }
    const double pairsDoneAt = wall.nsecsElapsed() / 1e9;

    if (verdict.isEmpty()) {
        verdict = comparison.verdict;
        reason = comparison.reason;
        if (!o.n && Statistics::relativeHalfWidth(comparison) > o.adaptive.ciWidth)
            warnings.append(
                QStringLiteral("adaptive n stopped at the %1 before the 99% interval reached +-%2%; the "
                               "timings are noisier than usual")
                    .arg(int(b.ms.size()) >= o.adaptive.maxPairs
                             ? QStringLiteral("pair budget (max_pairs)")
                             : QStringLiteral("time budget (max_seconds)"))
                    .arg(o.adaptive.ciWidth * 100));
    } else {
        comparison = Statistics::compare(b.ms, c.ms, o.comparison);
    }
    if (!sharedWith.empty() && (verdict == QLatin1String("faster") || verdict == QLatin1String("slower"))) {
        if (GpuSharing::allOfSessions(sharedWith)) {
            // Issue 42: by that session's own word, not a guess from a command line.
            reason = QStringLiteral("the timings alone would say %1 (%2), but a worker of another hotkernel "
                                    "session was computing on the GPU during the timed runs (%3), so they "
                                    "do not show the two scripts alone; run verify again when that "
                                    "session's call has finished, or free the card (%4)")
                         .arg(verdict, reason, GpuSharing::describe(sharedWith),
                              GpuSharing::howToFree(sharedWith));
        } else {
            reason =
                QStringLiteral("the timings alone would say %1 (%2), but another process was computing on "
                               "the GPU during the timed runs (%3), so they do not show the two "
                               "scripts alone; run verify again when the GPU is free")
                    .arg(verdict, reason, GpuSharing::describe(sharedWith));
        }
        verdict = QStringLiteral("inconclusive");
    }
    if (!sharedWith.empty())
        warnings.append(QStringLiteral("the GPU was shared during the timed runs with %1")
                            .arg(GpuSharing::describe(sharedWith)));
    if (!idleOnCard.empty())
        warnings.append(
            QStringLiteral("%1 held GPU memory but computed nothing during the timed runs (NVML's "
                           "per-process samples), so they did not count against the verdict; an "
                           "idle context such as another hotkernel session's spare workers looks "
                           "like this%2")
                .arg(GpuSharing::describe(idleOnCard), GpuSharing::howToFree(idleOnCard).isEmpty()
                                                           ? QString()
                                                           : QStringLiteral("; to free that memory: %1")
                                                                 .arg(GpuSharing::howToFree(idleOnCard))));
    isolation.amendVerdict(verdict, reason, warnings);
    // Issue 25: a time below what this card can physically do is no verdict (either side).
    const FloorCeilings ceilings = MeasureSetup::floorCeilings(gpu, b.first.json, calibrations);
    const PhysicalFloor::Report floor =
        PhysicalFloor::judge(ceilings, PhysicalFloor::work(b.first.json),
                             {{QStringLiteral("baseline"), b.ms}, {QStringLiteral("candidate"), c.ms}});
    if (!floor.violation.isEmpty() && verdict != QLatin1String("invalid") &&
        verdict != QLatin1String("incorrect")) {
        verdict = QStringLiteral("invalid");
        reason = floor.violation;
    }
    if (!witnessUnavailable.isEmpty())
        warnings.append(QStringLiteral("the GPU did not witness the runs (%1), so the reported times rest on "
                                       "the contract's own timer alone")
                            .arg(witnessUnavailable));
    const bool measuredVerdict = verdict != QLatin1String("invalid") && verdict != QLatin1String("incorrect");
    // Issue 41: what kept each side from writing where the verdict reads (the supervisor's report,
    // written before the worker ran a line of Python). An unconfined candidate cannot be recorded.
    const QString confinedBaseline = b.prepared.runner->confinement();
    const QString confinedCandidate = c.prepared.runner->confinement();
    if (!WriteConfinement::confined(confinedCandidate))
        warnings.append(QStringLiteral("the candidate ran unconfined (%1): it could write where the verdict "
                                       "reads (calibrations, the baseline's sources, results/), so this "
                                       "result cannot be recorded")
                            .arg(confinedCandidate));

    Json r = MeasureSetup::verifyResultHead(b.file, c.file);
    r["target"] = b.haveFirst ? b.first.json.value("target", Json()) : Json();
    r["verdict"] = toStd(verdict);
    r["reason"] = toStd(reason);
    // The estimate for every measured verdict (issue 45: a slower or inconclusive verify says by how
    // much too); incorrect and invalid runs measured nothing worth a number, their reason says why.
    r["speedup"] = measuredVerdict && std::isfinite(comparison.speedup) && comparison.speedup > 0
                       ? Json(comparison.speedup)
                       : Json();
    r["speedup_ci95"] = measuredVerdict ? intervalJson(comparison.ci95) : Json();
    r["speedup_ci99"] = measuredVerdict ? intervalJson(comparison.ci99) : Json();
    r["rule"] = toStd(Statistics::ruleName(o.comparison.rule));
    r["min_effect"] = o.comparison.minEffect;
    r["alpha"] = o.comparison.alpha;
    r["n"] = int(b.ms.size());
    r["warmup"] = o.warmup;
    r["adaptive"] = !o.n.has_value();
    r["adaptive_limits"] = Json{{"ci_width", o.adaptive.ciWidth},
                                {"min_pairs", o.adaptive.minPairs},
                                {"max_pairs", o.adaptive.maxPairs},
                                {"max_seconds", o.adaptive.maxSeconds}};
    r["mode"] = toStd(mode);
    r["workers_reused"] = Json{{"baseline", b.prepared.reused}, {"candidate", c.prepared.reused}};
    r["workers_from_spare"] = Json{{"baseline", b.prepared.fromSpare}, {"candidate", c.prepared.fromSpare}};
    r["baseline_stats"] = statsJson(comparison.baseline, b.ms);
    r["candidate_stats"] = statsJson(comparison.candidate, c.ms);
    r["welch"] = comparison.baseline.n >= 2 && comparison.candidate.n >= 2
                     ? Json{{"t", std::isfinite(comparison.t) ? Json(comparison.t) : Json()},
                            {"df", comparison.df},
                            {"p_value", comparison.pValue}}
                     : Json();
    r["contract"] = b.haveFirst ? MeasureSetup::contractJson(b.first) : Json::object();
    if (!lastTimers[0].isEmpty())
        r["contract"]["timer"] = toStd(lastTimers[0]); // the timer of the times that count
    const auto timerJson = [](const QString &t) { return t.isEmpty() ? Json() : Json(toStd(t)); };
    r["timers"] = Json{{"baseline", timerJson(lastTimers[0])},
                       {"candidate", timerJson(lastTimers[1])},
                       {"events_for_both_from_run", eventsForBothFrom}};
    r["contract"]["shipped_contract_sha256"] =
        shippedContract.isEmpty() ? Json() : Json(toStd(shippedContract));
    r["mismatches"] = toJson(mismatches);
    r["failed_runs"] = failedRuns;
    r["judge_seeds"] = judgeSeeds;
    // The judge outside the candidate's process: runs it judged and the time it took (outside the
    // timed region: after both runs of a pair).
    r["outside_judge"] =
        Json{{"judge", "baseline worker"},
             {"runs_judged", judgedRuns},
             {"wall_s", judgeSeconds},
             {"transport", judgedTransport.isEmpty() ? Json() : Json(toStd(judgedTransport))}};
    r["roofline_inputs"] = Json{{"flops", r["contract"].value("flops", Json())},
                                {"bytes", r["contract"].value("bytes", Json())}};
    r["physical_floor"] = floor.json;
    r["confinement"] = Json{{"baseline", toStd(confinedBaseline)}, {"candidate", toStd(confinedCandidate)}};
    r["frozen"] = isolation.frozenJson();
    r["run_conditions"] = isolation.conditionsJson();
    r["witness"] = witness.is_null() ? Json::object() : witness;
    r["witness_ratios"] = witnessRatios;
    r["versions"] = b.haveFirst ? MeasureSetup::versionsJson(b.first) : Json::object();
    r["interpreter"] = MeasureSetup::interpreterJson(python);
    r["gpu"] = gpu;
    if (Json host = MeasureSetup::hostJson(session); !host.is_null())
        r["host"] = std::move(host);
    r["commands"] = toJson(QStringList{b.prepared.runner->commandLine(), c.prepared.runner->commandLine()});
    r["warnings"] = toJson(warnings);
    r["started_at"] = toStd(startedAt);
    r["finished_at"] = toStd(MeasureSetup::utcNow());
    r["wall_s"] = wall.nsecsElapsed() / 1e9;
    // Where the wall time went: until both workers were ready (interpreter, torch, inputs, first
    // call; the baseline's warm-up run overlaps the candidate's start), waiting for the GPU lock, the
    // rest of the warm-up pairs, the measured pairs.
    r["phases_s"] = Json{{"workers_ready", readyAt},
                         {"gpu_lock_wait", lockWait},
                         {"warmup", measuringAt - std::max(readyAt, lockedAt)},
                         {"measured", pairsDoneAt - measuringAt}};
    r["steps_s"] = steps;
    co_return ToolResult::success(r, text(r));
}

} // namespace hotkernel
