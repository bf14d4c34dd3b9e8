// SPDX-License-Identifier: Apache-2.0
// Runs a target script once per request and returns its parsed result line: the one interface
// bench and verify talk to, whether a process starts per run (fresh) or a worker stays up (warm).
// Lives on the Session's thread; never blocks it.
#pragma once

#include "measure/runline.h"
#include "measure/witnesstrace.h"

#include <QCoroTask>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <chrono>
#include <memory>
#include <optional>

namespace hotkernel {

class Job;
class RemoteShell;

struct ScriptRunnerOptions
{
    QString python;           // the interpreter, absolute
    QString script;           // absolute path of the target script
    QString displayName;      // how messages name the script (as the user gave it)
    QString workingDirectory; // default: the script's directory
    std::chrono::milliseconds timeout{std::chrono::seconds(300)}; // per run (and for a worker's start)
    // hotkernel's CUPTI tracer, injected in witness mode (issue 19); empty: runs are not witnessed.
    QString witnessTracer;
    // Set: the script runs on this remote host (issue 24), through ssh or srun under the remote
    // supervisor.
    std::shared_ptr<const RemoteShell> remote;
};

struct RunOutcome
{
    RunLine line;
    bool cancelled = false;             // the job was cancelled; line is empty
    double wallSeconds = 0;             // from request to answer, including a fresh process's start-up
    bool witnessed = false;             // the process ran under the tracer in witness mode
    std::vector<WitnessWindow> witness; // the tracer's windows for this run
    // Protocol 5: the core's clock from its go to the worker's "done" around the timed replays
    // (BracketClock); -1 when the run was not bracketed or the events did not come in order.
    double bracketSeconds = -1;
    QString bracketFault; // why the bracket events broke the protocol, else empty
};

struct JudgeOutcome
{
    JudgeAnswer answer;
    bool cancelled = false;
    double wallSeconds = 0;
};

// Issue 41: the process tree verify stops while the other side runs (TreeFreeze).
struct FreezableTree
{
    long long root = 0; // the worker's supervisor; 0: nothing to stop, whyNot says why
    QString whyNot;
    bool between = false; // whyNot means nothing runs between runs (fresh), not a missing guard
};

class ScriptRunner
{
public:
    virtual ~ScriptRunner() = default;

    // "fresh" or "warm".
    virtual QString mode() const = 0;
    // Begins whatever must happen before the first run (a worker's start) without waiting for it,
    // so that two runners start in parallel. Idempotent.
    virtual void start() = 0;
    // Resolves true once the runner can take runs, false when the job was cancelled meanwhile.
    // Throws UserError when it cannot start (naming the script and what it printed).
    virtual QCoro::Task<bool> waitReady() = 0;
    // One run with input data from seed + runIndex. Throws UserError (naming script and run) on a
    // crash, a hang past the timeout, garbage on stdout or a line that breaks the contract.
    virtual QCoro::Task<RunOutcome> run(int runIndex) = 0;
    // Protocol 4: judges the judged outputs another script's run wrote to file against this
    // script's reference for the current judge seed (the baseline judges the candidate). Throws
    // UserError as run() does, and when the runner cannot judge (an uncontracted script).
    virtual QCoro::Task<JudgeOutcome> judge(int runIndex, QString file) = 0;
    // Ends everything the runner started (its whole process group).
    virtual void stop() = 0;
    // The job whose cancellation ends the current and later requests.
    virtual void setJob(QPointer<Job> job) = 0;
    // The exact command (for results); fresh runners show "--run I".
    virtual QString commandLine() const = 0;

    const ScriptRunnerOptions &options() const { return m_options; }
    // Issue 41: the only directory the script's process may write (its scratch, which holds its
    // caches and TMPDIR); empty when it may write anywhere. Verify puts the judge folder inside it.
    virtual QString scratchDir() const { return {}; }
    // On a remote host: the scratch's path there (RemoteSandbox), where verify puts the candidate's
    // judge folder; empty here.
    virtual QString remoteScratchDir() const { return {}; }
    // What confines the script's writes: "landlock ABI N", or "none: REASON". Call once ready.
    virtual QString confinement()
    {
        return QStringLiteral("none: each run starts a new process, and those are not confined yet");
    }
    // What stands between runs and can be stopped while the other side of a verify runs.
    virtual FreezableTree freezableTree() const
    {
        return {0, QStringLiteral("this runner keeps no process between runs"), true};
    }
    // A kept worker serves later calls that may name the script differently or want another timeout.
    void setTimeout(std::chrono::milliseconds timeout) { m_options.timeout = timeout; }
    void setDisplayName(const QString &name) { m_options.displayName = name; }
    // The seed of the judged replay in the next runs (docs/contract.md): verify draws one per pair
    // at run time, so no script can know it in advance. Unset: the contract draws its own.
    void setJudgeSeed(std::optional<quint64> seed) { m_judgeSeed = seed; }
    // Where the next runs write their judged outputs for the judge outside the process (verify's
    // private directory for the candidate); empty: they write none (bench, the baseline).
    void setJudgeDir(const QString &dir) { m_judgeDir = dir; }
    const QString &judgeDir() const { return m_judgeDir; }
    // Issue 19: verify asks both sides for the events timer when one side cannot be graph-captured,
    // so that their times are comparable. False: the contract chooses (a graph when it can).
    void setEventsTimer(bool events) { m_eventsTimer = events; }
    // Issue 41: verify asks for the bracket (BracketClock) around every run's timed replays.
    void setBracket(bool bracket) { m_bracket = bracket; }

protected:
    explicit ScriptRunner(ScriptRunnerOptions options) : m_options(std::move(options)) {}
    ScriptRunnerOptions m_options;
    std::optional<quint64> m_judgeSeed;
    QString m_judgeDir;
    bool m_eventsTimer = false;
    bool m_bracket = false;
};

} // namespace hotkernel
