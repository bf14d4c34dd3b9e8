// SPDX-License-Identifier: Apache-2.0
// Verify's first phase: the arguments, both scripts hashed, the host and the interpreter readied,
// both workers started (and waited for), the judge's directory, the GPU snapshot and lock.
#include "base/job.h"
#include "base/usererror.h"
#include "measure/measuresession.h"
#include "measure/sessionpeers.h"
#include "measure/verifystate.h"
#include "measure/workerscriptrunner.h"
#include "process/runtimedir.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>

namespace hotkernel {

VerifyOptions VerifyOptions::parse(const Json &a)
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

VerifyRunnerSettings::~VerifyRunnerSettings()
{
    candidate->setJudgeDir({});
    for (ScriptRunner *r : {baseline, candidate}) {
        r->setEventsTimer(false);
        r->setBracket(false);
    }
}

namespace {
QElapsedTimer startedVerifyTimer()
{
    QElapsedTimer timer;
    timer.start();
    return timer;
}
} // namespace

VerifyState::VerifyState(MeasureSession &s, const Json &arguments, Job &j)
    : session(&s), job(j), o(VerifyOptions::parse(arguments)), startedAt(MeasureSetup::utcNow()),
      startedNs(QDateTime::currentMSecsSinceEpoch() * 1000000),
      wall(startedVerifyTimer()), b{"baseline", MeasureSetup::script(s, arguments, "baseline"), {}, {}, {},
                                    false},
      c{"candidate", MeasureSetup::script(s, arguments, "candidate"), {}, {}, {}, false},
      shippedContract(MeasureSetup::shippedContractSha256())
{
    if (o.n)
        total = 2.0 * (o.warmup + *o.n);
}

namespace {

// Where the candidate writes its judged outputs for the judge outside its process: a fresh 0700
// directory in the candidate's scratch, the one place a confined worker may write (issue 41), else
// under the runtime directory (else the temp folder); removed with the verify.
std::unique_ptr<QTemporaryDir> makeVerifyJudgeDir(const QString &scratch)
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

// The scripts hashed, the host readied (a remote one: the scripts copied, its witness built), the
// interpreter to start with, and the calibrations, all before any worker of this verify runs.
QCoro::Task<void> readyVerifyHost(VerifyState *state)
{
    VerifyState &s = *state;
    for (const VerifySide *side : {&s.b, &s.c})
        s.watchedPaths << side->file.path
                       << QFileInfo(side->file.path).dir().filePath(QStringLiteral("_hotkernel_contract.py"));
    s.watchedBefore = co_await s.job(MeasureSetup::sha256OfFiles(s.watchedPaths));
    s.b.file.sha256 = s.watchedBefore.value(0);
    s.c.file.sha256 = s.watchedBefore.value(2);

    const QStringList hostFiles{s.b.file.path, s.c.file.path};
    const bool hostReady = co_await s.job(MeasureSetup::prepareHost(*s.session, hostFiles, s.job.get()));
    s.job.require(hostReady);
    co_await s.job(MeasureSetup::prepareRemoteWitness(*s.session, s.job.get()));
    s.remote = s.session->remote();
    s.python = co_await s.job(MeasureSetup::startingInterpreter(*s.session, s.job.get()));

    // Issue 41: the floor's calibrations are read before any worker of this verify runs a line of
    // the scripts, so a candidate cannot plant the file its floor is computed from.
    const QString workRoot = s.session->workDir().root();
    s.calibrations = co_await s.job(MeasureSetup::calibrations(workRoot));
}

// Both workers started (they import torch in parallel; the GPU snapshot overlaps with that too),
// the judge's directory made and the per-verify settings given to the runners.
QCoro::Task<void> startVerifyWorkers(VerifyState *state)
{
    VerifyState &s = *state;
    // Unused by fresh processes; judged anyway, since every co_await here runs unconditionally.
    std::vector<std::pair<QString, QString>> roles; // a named argument (see docs/hacking.md)
    roles.emplace_back(QStringLiteral("baseline"), s.b.file.path);
    roles.emplace_back(QStringLiteral("candidate"), s.c.file.path);
    const std::vector<QByteArray> keys =
        co_await s.job(MeasureSetup::judgeWorkers(*s.session, std::move(roles), s.python));
    s.b.prepared = MeasureSetup::prepare(*s.session, QStringLiteral("baseline"), s.b.file, s.python,
                                         s.o.fresh, s.o.timeout, s.job.pointer(), keys[0]);
    s.c.prepared = MeasureSetup::prepare(*s.session, QStringLiteral("candidate"), s.c.file, s.python,
                                         s.o.fresh, s.o.timeout, s.job.pointer(), keys[1]);
    s.release.emplace(*s.session, std::vector<PreparedRunner *>{&s.b.prepared, &s.c.prepared});
    ScriptRunner &baseline = *s.b.prepared.runner;
    ScriptRunner &candidate = *s.c.prepared.runner;
    // On a remote host the candidate writes its judged outputs there, in its scratch (the one place
    // it may write: issue 41), the baseline judges them there, and a copy comes here for the checks
    // made before that (docs/remote.md).
    if (s.remote) {
        const QString remoteDir = co_await s.job(
            s.remote->makePrivateDir(s.job.get(), QStringLiteral("judge"), candidate.remoteScratchDir()));
        s.job.require(!remoteDir.isEmpty());
        s.remoteJudgeDir = remoteDir;
    }
    s.removeRemoteJudgeDir.host = s.remote;
    s.removeRemoteJudgeDir.path = s.remoteJudgeDir;
    s.judgeDir = makeVerifyJudgeDir(candidate.scratchDir());
    if (s.remote)
        candidate.setJudgeDir(s.remoteJudgeDir);
    else
        candidate.setJudgeDir(s.judgeDir->path());
    baseline.setJudgeDir({});
    baseline.setEventsTimer(false);
    candidate.setEventsTimer(false);
    baseline.setBracket(true);
    candidate.setBracket(true);
    s.perVerify.emplace(&baseline, &candidate);
    s.python =
        co_await s.job(MeasureSetup::confirmedInterpreter(*s.session, s.python, s.job.get(), *s.release));
}

// The GPU snapshot, then the workers' starts waited for. Issue 23: the baseline's warm-up run
// overlaps the candidate's start (a spare loading the edited script and compiling its kernels).
// Only a warm-up run may: its time counts for nothing. With no warm-up pair both sides are ready
// before the first run.
QCoro::Task<void> awaitVerifyWorkers(VerifyState *state)
{
    VerifyState &s = *state;
    s.mode = s.o.fresh ? QStringLiteral("fresh") : QStringLiteral("warm");
    if (s.o.fresh)
        s.job->setProgress(0, std::nullopt, QStringLiteral("fresh mode: one process per run"));
    else
        s.job->setProgress(0, std::nullopt,
                           QStringLiteral("starting workers (baseline %1, candidate %2)")
                               .arg(s.b.prepared.reused ? QStringLiteral("reused") : QStringLiteral("new"),
                                    s.c.prepared.reused ? QStringLiteral("reused") : QStringLiteral("new")));
    s.gpu = co_await s.job(MeasureSetup::gpuSnapshot(*s.session, s.job.get(), &s.warnings));
    const bool overlapWarmup = s.o.warmup > 0;
    for (VerifySide *side : {&s.b, &s.c}) {
        if (side == &s.c && overlapWarmup)
            break;
        const bool ready = co_await s.job(side->prepared.runner->waitReady());
        s.job.require(ready);
        s.candidateReady = side == &s.c;
    }
    s.readyAt = s.wall.nsecsElapsed() / 1e9;
}

// Issue 42: other sessions of this user say which processes on the card are theirs; their idle
// spares are asked to end for the timed runs (they start again after that session's next bench or
// verify).
QCoro::Task<void> askVerifyPeers(VerifyState *state)
{
    VerifyState &s = *state;
    // Named arguments: no temporary in a co_await operand (docs/hacking.md).
    const QStringList sockets = SessionPeers::sockets();
    const QString workersMethod = QString::fromLatin1(SessionPeers::WorkersMethod);
    const std::vector<Json> answers = co_await s.job(SessionPeers::ask(sockets, workersMethod));
    s.peers = SessionPeers::processes(answers, QCoreApplication::applicationPid());
    std::vector<GpuSharing::Other> onCard = GpuSharing::others(s.gpu);
    GpuSharing::attribute(onCard, s.peers);
    const QStringList holdingSpares = GpuSharing::socketsWithSpares(onCard);
    if (!holdingSpares.isEmpty()) {
        const QString releaseMethod = QString::fromLatin1(SessionPeers::ReleaseSparesMethod);
        const std::vector<Json> released = co_await s.job(SessionPeers::ask(holdingSpares, releaseMethod));
        s.warnings.append(GpuSharing::releasedSpares(onCard, released));
    }
}

} // namespace

bool VerifyState::needsGpuLock() const
{
    const auto onGpu = [](const VerifySide &side) {
        return DeviceLock::needsLock(side.prepared.worker ? side.prepared.worker->readyLine() : Json());
    };
    return onGpu(b) || (candidateReady && onGpu(c));
}

QCoro::Task<void> VerifyPhases::prepare(VerifyState *state)
{
    VerifyState &s = *state;
    co_await s.job(readyVerifyHost(state));
    co_await s.job(startVerifyWorkers(state));
    co_await s.job(awaitVerifyWorkers(state));
    if (s.needsGpuLock()) {
        const double waitFrom = s.wall.nsecsElapsed() / 1e9;
        const bool locked = co_await s.job(
            MeasureSetup::takeGpuLock(s.deviceLock, s.remoteLock, s.remote, s.job.pointer(), s.o.timeout));
        s.job.require(locked);
        s.locked = true;
        s.lockedAt = s.wall.nsecsElapsed() / 1e9;
        s.lockWait += s.lockedAt - waitFrom;
    }
    if (s.locked && !s.remote)
        co_await s.job(askVerifyPeers(state));
    s.measuringAt = s.wall.nsecsElapsed() / 1e9;
    s.measuringSinceUs = QDateTime::currentMSecsSinceEpoch() * 1000;
}

} // namespace hotkernel
