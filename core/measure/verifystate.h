// SPDX-License-Identifier: Apache-2.0
// One verify's state, shared by its phases (VerifyPhases): prepare (arguments, workers, the GPU
// lock), pairs (the interleaved runs and every check of a pair), afterPairs and verdict (what
// changed during the runs, the statistics, the verdict, the result). Lives in VerifyRun::run's
// frame on the Session's thread; the phases take a pointer to it (docs/hacking.md).
#pragma once

#include "base/cancelaware.h"
#include "base/json.h"
#include "base/toolresult.h"
#include "inspect/calibrationstore.h"
#include "measure/devicelock.h"
#include "measure/gpusharing.h"
#include "measure/measuresetup.h"
#include "measure/runisolation.h"
#include "measure/runline.h"
#include "measure/scriptrunner.h"
#include "measure/statistics.h"
#include "process/pythonlocator.h"
#include "remote/remotehost.h"

#include <QCoroTask>
#include <QElapsedTimer>
#include <QPointer>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace hotkernel {

class Job;
class MeasureSession;

struct VerifyOptions
{
    std::optional<int> n; // fixed n; empty = adaptive
    int warmup = 1;
    std::chrono::milliseconds timeout{std::chrono::seconds(300)};
    bool fresh = false;
    ComparisonOptions comparison;
    AdaptiveOptions adaptive;

    // The tool's arguments, validated; throws UserError on a rule or n that cannot be used.
    static VerifyOptions parse(const Json &arguments);
};

struct VerifySide
{
    const char *name;
    ScriptFile file;
    PreparedRunner prepared;
    std::vector<double> ms; // the measured runs' times
    RunLine first;
    bool haveFirst = false;
};

// The judge directory, the forced events timer and the bracket hold for this verify only: a kept
// worker serves later calls, which have no judge and whose other side may be capturable.
struct VerifyRunnerSettings
{
    VerifyRunnerSettings(ScriptRunner *b, ScriptRunner *c) : baseline(b), candidate(c) {}
    VerifyRunnerSettings(const VerifyRunnerSettings &) = delete; // one reset, by the one in the state
    VerifyRunnerSettings &operator=(const VerifyRunnerSettings &) = delete;
    ~VerifyRunnerSettings();

    ScriptRunner *baseline;
    ScriptRunner *candidate;
};

// The members that own something are declared in the order the verify takes them, so that they are
// given back in the reverse order (the runners' settings before the judge directory, the workers
// after both, the isolation first).
struct VerifyState
{
    // Reads the options and resolves both scripts (UserError when either cannot be used).
    VerifyState(MeasureSession &session, const Json &arguments, Job &job);
    VerifyState(const VerifyState &) = delete;
    VerifyState &operator=(const VerifyState &) = delete;

    // Only a target that times on the GPU takes the GPU lock; CPU targets share nothing (issue 18).
    // The candidate counts once its start was waited for.
    bool needsGpuLock() const;

    MeasureSession *session;
    CancelAware job; // every await of the phases goes through it
    const VerifyOptions o;
    const QString startedAt;
    // Issue 41: files changed after this moment were changed during the verify (ImportedSources).
    const qint64 startedNs;
    QElapsedTimer wall;
    VerifySide b;
    VerifySide c;
    const QString shippedContract;
    QStringList warnings;

    // --- prepare ---
    // The scripts and the contract next to each, hashed before the runs and again after them.
    QStringList watchedPaths;
    QStringList watchedBefore;
    QPointer<RemoteHost> remote;
    PythonInfo python;
    CalibrationSnapshot calibrations;
    std::optional<MeasureSetup::WorkerRelease> release;
    QString remoteJudgeDir;
    RemoteHost::FolderRemoval removeRemoteJudgeDir;
    std::unique_ptr<QTemporaryDir> judgeDir;
    std::optional<VerifyRunnerSettings> perVerify;
    QString mode;
    Json gpu;
    bool candidateReady = false;
    // Both workers started (torch imported, kernel built); until the candidate's start is waited
    // for in the first pair, the baseline's.
    double readyAt = 0;
    double lockWait = 0;
    double lockedAt = 0;
    DeviceLock deviceLock;
    std::shared_ptr<QProcess> remoteLock; // a remote host's lock is the host's (docs/remote.md)
    bool locked = false;
    std::vector<GpuSharing::PeerProcess> peers;
    double measuringAt = 0;
    // The same moment on the system clock, which NVML stamps its per-process samples with.
    qint64 measuringSinceUs = 0;

    // --- pairs ---
    QString verdict;
    QString reason;
    QStringList mismatches;
    Json failedRuns = Json::array();
    std::optional<double> total;
    Comparison comparison;
    int pair = 0;
    int runsDone = 0;
    Json judgeSeeds = Json::array();
    QString witnessUnavailable;
    int bracketRetries = 0; // pairs re-run because a bracket disagreed
    Json witness;           // the last pair's witness, per side
    Json witnessRatios = {{"baseline", Json::object()}, {"candidate", Json::object()}}; // measured pairs
    int judgedRuns = 0;
    QString judgedTransport; // how the candidate's last judged outputs reached the judge
    double judgeSeconds = 0;
    // Where each side's runs spend their time (the contract's steps_ms, summed; "run_wall" is the
    // run as this process saw it, request to line): issue 19's cost, measured, not guessed.
    Json steps = Json{{"baseline", Json::object()}, {"candidate", Json::object()}, {"judge", Json::object()}};
    // Issue 19: from the first pair with different timers on, both sides are timed with events.
    Json eventsForBothFrom;
    QString lastTimers[2];
    std::optional<RunIsolation> isolation;

    // --- after the pairs ---
    // Another user's process on the card (GPU locks are per user) during the timed runs.
    std::vector<GpuSharing::Other> sharedWith;
    std::vector<GpuSharing::Other> idleOnCard;
    double pairsDoneAt = 0;

    // --- the verdict ---
    Json physicalFloor; // PhysicalFloor::Report's json (issue 25)
    QString confinedBaseline;
    QString confinedCandidate;
};

// Each phase throws JobCancelled (through state->job) when the job stops, and UserError for what
// the user must fix; VerifyRun::run turns the first into ToolResult::cancelledResult().
namespace VerifyPhases {
// Hashes the scripts, readies the host and the interpreter, starts both workers, waits for them
// and takes the GPU lock (verifyprepare.cpp).
QCoro::Task<void> prepare(VerifyState *state);
// The pairs until n, the adaptive stop or a verdict that needs no more (verifypairs.cpp).
QCoro::Task<void> pairs(VerifyState *state);
// The card's other users over the timed runs, the judge folder's removal on a remote host, and the
// files that changed during the verify (verifyverdict.cpp).
QCoro::Task<void> afterPairs(VerifyState *state);
// The verdict from the statistics, amended by what the pairs and afterPairs found, and its
// warnings (verifyverdict.cpp).
void decideVerdict(VerifyState &state);
// The structured result (docs/verify-result.md) and its text (verifyresult.cpp).
ToolResult result(const VerifyState &state);
} // namespace VerifyPhases

} // namespace hotkernel
