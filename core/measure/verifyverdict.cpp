// SPDX-License-Identifier: Apache-2.0
// Verify after its pairs: who else computed on the card during the timed runs, which watched file
// changed meanwhile, and the verdict those and the statistics give.
#include "base/job.h"
#include "inspect/gpuprobe.h"
#include "measure/importedsources.h"
#include "measure/verifystate.h"
#include "measure/workerscriptrunner.h"
#include "process/writeconfinement.h"

#include <QDir>
#include <QtConcurrentRun>

#include <map>

namespace hotkernel {

namespace {

// Another user's process on the card (GPU locks are per user) during the timed runs: seen before
// them or at their end.
QCoro::Task<void> readVerifyCardUsers(VerifyState *state)
{
    VerifyState &s = *state;
    s.sharedWith = GpuSharing::others(s.gpu);
    const Json after = co_await s.job(MeasureSetup::gpuSnapshot(*s.session, s.job.get(), nullptr));
    GpuSharing::merge(s.sharedWith, GpuSharing::others(after));
    GpuSharing::attribute(s.sharedWith, s.peers);
    // Issue 42: a context that computed nothing during the timed runs (another session's idle spare
    // workers) shared memory, not the SMs.
    if (!s.sharedWith.empty() && !s.remote) {
        const Json activity = co_await s.job(GpuProbe::processUtilization(s.measuringSinceUs, s.job.get()));
        GpuSharing::addActivity(s.sharedWith, activity);
        s.sharedWith = GpuSharing::computing(s.sharedWith, &s.idleOnCard);
    }
}

// Waited for: a CLI process exits right after, before a removeLater() could run. Once the removal
// returned (also cancelled) nothing removes the folder again; the caller's await checks the job.
QCoro::Task<void> removeVerifyJudgeDirThere(VerifyState *state)
{
    VerifyState &s = *state;
    co_await s.remote->remove(s.remoteJudgeDir, s.job.get()); // cancel: checked by the caller
    s.removeRemoteJudgeDir.path.clear();
}

void invalidateVerify(VerifyState &s, const QString &reason)
{
    s.verdict = QStringLiteral("invalid");
    s.reason = reason;
    s.mismatches.append(reason);
}

// A script, or the contract next to it, rewritten while it ran: the runs measured something else
// than the files the result names. Hashed off the main thread: a script may have become a FIFO, a
// device or a huge file (issue 39).
QCoro::Task<void> checkVerifyWatchedFiles(VerifyState *state)
{
    VerifyState &s = *state;
    const QStringList watchedAfter = co_await s.job(MeasureSetup::sha256OfFiles(s.watchedPaths));
    for (int k = 0; k < s.watchedPaths.size(); ++k) {
        const QString &path = s.watchedPaths[k];
        if (watchedAfter.value(k) != s.watchedBefore.value(k) && s.verdict != QLatin1String("invalid"))
            invalidateVerify(s, QStringLiteral("%1 changed on disk during the verify, so the runs measured "
                                               "another file than the one this result names: run verify "
                                               "again and leave the files alone")
                                    .arg(QDir::toNativeSeparators(path)));
    }
    // Issue 41: every file either worker imported (the baseline's --from module included), as the
    // workers reported them, against the disk now; hashed off the main thread.
    std::map<QString, QByteArray> imported;
    QStringList scratchDirs;
    for (const VerifySide *side : {&s.b, &s.c}) {
        if (side->prepared.worker)
            for (const auto &[path, sha] : side->prepared.worker->sources())
                imported.try_emplace(path, sha);
        scratchDirs << side->prepared.runner->scratchDir();
    }
    const QFuture<QString> changing =
        QtConcurrent::run(&ImportedSources::changed, imported, scratchDirs, s.startedNs);
    const QString importChange = co_await s.job(changing);
    if (!importChange.isEmpty() && s.verdict != QLatin1String("invalid"))
        invalidateVerify(s, importChange +
                                QStringLiteral(": run verify again and leave the files alone while it runs"));
}

// faster or slower is inconclusive when another process computed on the card during the timed runs;
// the warnings name who shared it and who only held memory there.
void amendVerifyForSharing(VerifyState &s)
{
    if (!s.sharedWith.empty() &&
        (s.verdict == QLatin1String("faster") || s.verdict == QLatin1String("slower"))) {
        if (GpuSharing::allOfSessions(s.sharedWith)) {
            // Issue 42: by that session's own word, not a guess from a command line.
            s.reason =
                QStringLiteral("the timings alone would say %1 (%2), but a worker of another hotkernel "
                               "session was computing on the GPU during the timed runs (%3), so they "
                               "do not show the two scripts alone; run verify again when that "
                               "session's call has finished, or free the card (%4)")
                    .arg(s.verdict, s.reason, GpuSharing::describe(s.sharedWith),
                         GpuSharing::howToFree(s.sharedWith));
        } else {
            s.reason =
                QStringLiteral("the timings alone would say %1 (%2), but another process was computing "
                               "on the GPU during the timed runs (%3), so they do not show the two "
                               "scripts alone; run verify again when the GPU is free")
                    .arg(s.verdict, s.reason, GpuSharing::describe(s.sharedWith));
        }
        s.verdict = QStringLiteral("inconclusive");
    }
    if (!s.sharedWith.empty())
        s.warnings.append(QStringLiteral("the GPU was shared during the timed runs with %1")
                              .arg(GpuSharing::describe(s.sharedWith)));
    if (!s.idleOnCard.empty()) {
        const QString howToFree = GpuSharing::howToFree(s.idleOnCard);
        s.warnings.append(
            QStringLiteral("%1 held GPU memory but computed nothing during the timed runs (NVML's "
                           "per-process samples), so they did not count against the verdict; an "
                           "idle context such as another hotkernel session's spare workers looks "
                           "like this%2")
                .arg(GpuSharing::describe(s.idleOnCard),
                     howToFree.isEmpty() ? QString()
                                         : QStringLiteral("; to free that memory: %1").arg(howToFree)));
    }
}

} // namespace

QCoro::Task<void> VerifyPhases::afterPairs(VerifyState *state)
{
    VerifyState &s = *state;
    if (s.locked)
        co_await s.job(readVerifyCardUsers(state));
    s.deviceLock.release();
    s.remoteLock.reset();
    if (s.remote)
        co_await s.job(removeVerifyJudgeDirThere(state));
    co_await s.job(checkVerifyWatchedFiles(state));
    s.pairsDoneAt = s.wall.nsecsElapsed() / 1e9;
}

void VerifyPhases::decideVerdict(VerifyState &s)
{
    if (s.verdict.isEmpty()) {
        s.verdict = s.comparison.verdict;
        s.reason = s.comparison.reason;
        if (!s.o.n && Statistics::relativeHalfWidth(s.comparison) > s.o.adaptive.ciWidth)
            s.warnings.append(
                QStringLiteral("adaptive n stopped at the %1 before the 99% interval reached +-%2%; the "
                               "timings are noisier than usual")
                    .arg(int(s.b.ms.size()) >= s.o.adaptive.maxPairs
                             ? QStringLiteral("pair budget (max_pairs)")
                             : QStringLiteral("time budget (max_seconds)"))
                    .arg(s.o.adaptive.ciWidth * 100));
    } else {
        s.comparison = Statistics::compare(s.b.ms, s.c.ms, s.o.comparison);
    }
    amendVerifyForSharing(s);
    s.isolation->amendVerdict(s.verdict, s.reason, s.warnings);
    // Issue 25: a time below what this card can physically do is no verdict (either side).
    const FloorCeilings ceilings = MeasureSetup::floorCeilings(s.gpu, s.b.first.json, s.calibrations);
    const PhysicalFloor::Report floor =
        PhysicalFloor::judge(ceilings, PhysicalFloor::work(s.b.first.json),
                             {{QStringLiteral("baseline"), s.b.ms}, {QStringLiteral("candidate"), s.c.ms}});
    if (!floor.violation.isEmpty() && s.verdict != QLatin1String("invalid") &&
        s.verdict != QLatin1String("incorrect")) {
        s.verdict = QStringLiteral("invalid");
        s.reason = floor.violation;
    }
    s.physicalFloor = floor.json;
    if (!s.witnessUnavailable.isEmpty())
        s.warnings.append(
            QStringLiteral("the GPU did not witness the runs (%1), so the reported times rest on "
                           "the contract's own timer alone")
                .arg(s.witnessUnavailable));
    // Issue 41: what kept each side from writing where the verdict reads (the supervisor's report,
    // written before the worker ran a line of Python). An unconfined candidate cannot be recorded.
    s.confinedBaseline = s.b.prepared.runner->confinement();
    s.confinedCandidate = s.c.prepared.runner->confinement();
    if (!WriteConfinement::confined(s.confinedCandidate))
        s.warnings.append(
            QStringLiteral("the candidate ran unconfined (%1): it could write where the verdict "
                           "reads (calibrations, the baseline's sources, results/), so this "
                           "result cannot be recorded")
                .arg(s.confinedCandidate));
}

} // namespace hotkernel
