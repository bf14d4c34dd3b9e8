// SPDX-License-Identifier: Apache-2.0
// One long-lived `python SCRIPT --worker` process in its own process group: it imports torch and
// builds its inputs once, then answers {"op": "run", "run": I} requests on stdin with one result
// line each. A crash, a hang past the timeout or garbage on stdout kills the group and fails the
// request with a message naming the run. Lives on the Session's thread; never blocks it.
#pragma once

#include "measure/bracketclock.h"
#include "measure/scriptrunner.h"
#include "measure/spareworker.h"

#include "base/json.h"

#include <QFuture>
#include <QObject>
#include <QPromise>
#include <QTimer>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QProcess;

namespace hotkernel {

class RemoteSandbox;

class WorkerScriptRunner : public QObject, public ScriptRunner
{
    Q_OBJECT
public:
    explicit WorkerScriptRunner(ScriptRunnerOptions options, QObject *parent = nullptr);
    ~WorkerScriptRunner() override;

    QString mode() const override { return QStringLiteral("warm"); }
    void start() override;
    // Instead of start(): becomes the worker in a spare's process (issue 23), which is sent the
    // script to run; the ready line and everything after are as after start().
    void adopt(SpareHandOff spare);
    // Its process was a spare's (adopt()).
    bool fromSpare() const { return m_fromSpare; }
    QCoro::Task<bool> waitReady() override;
    QCoro::Task<RunOutcome> run(int runIndex) override;
    QCoro::Task<JudgeOutcome> judge(int runIndex, QString file) override;
    void stop() override;
    void setJob(QPointer<Job> job) override;
    QString commandLine() const override;
    QString scratchDir() const override;
    QString remoteScratchDir() const override;
    QString confinement() override;
    FreezableTree freezableTree() const override;

    // Started, answered ready (or still may) and not killed.
    bool isAlive() const;
    bool isReady() const { return m_state == State::Ready; }
    long long processGroup() const { return m_group; }
    const Json &readyLine() const { return m_ready; }
    int runsServed() const { return m_runsServed; }

    // The user's source files this worker has imported, as its ready and answer lines name them
    // ("sources", docs/contract.md), each with the sha256 the worker reported the first time it
    // named the file (empty: the worker could not vouch for what it loaded).
    const std::map<QString, QByteArray> &sources() const { return m_sources; }
    // Set when the worker's "sources" report was malformed: such a worker is never reused.
    const QString &sourcesBroken() const { return m_sourcesBroken; }
    // Why a worker that reported `sources` (and `broken`, see above) may be running code other than
    // what is on disk now: "PATH changed", "PATH vanished", "PATH cannot be read", ... Empty when
    // every reported file still has the bytes it had, and for a worker whose contract reports no
    // sources (reuse then rests on the pool's content key alone). Reads and hashes every reported
    // file: call it on the thread pool with copies (WorkerPool::judgeReuse), never on the session's.
    static QString staleSource(const std::map<QString, QByteArray> &sources, const QString &broken);

private:
    enum class State { NotStarted, Starting, Ready, Dead };
    enum class WaitEnd { Line, Exited, TimedOut, Cancelled };

    void connectProcess();
    QCoro::Task<WaitEnd> nextLine(QByteArray *line);
    // Writes one request and waits for its answer line; what (e.g. "run 3") names it in messages.
    // Returns false when the job was cancelled; throws UserError on a dead, hung or busy worker.
    struct LateSeed
    {
        int run = 0;
        quint64 seed = 0;
    };
    // The lines the contract prints mid-run before its answer (a late seed's question, the
    // bracket's events) are answered here and never returned as the answer.
    QCoro::Task<bool> exchange(QByteArray request, QString what, QByteArray *line, double *wallSeconds,
                               std::optional<LateSeed> lateSeed = std::nullopt,
                               BracketClock *bracket = nullptr);
    // Something a waiting request may care about happened: a line, an exit, a timeout, a cancel.
    void wakeUp();
    QFuture<void> armWake();
    void readStandardOutput();
    void kill(const QString &why);
    QString stderrSuffix() const;
    // Keeps the files a ready or answer line names that were not known yet (first report wins).
    void recordSources(const Json &line);
    QString exitDescription() const;

    std::unique_ptr<QProcess> m_process;
    State m_state = State::NotStarted;
    long long m_group = 0;
    QByteArray m_stdoutBuffer;
    std::deque<QByteArray> m_lines;
    QByteArray m_stderrTail;
    Json m_ready;
    QString m_deathReason;
    QPointer<Job> m_job;
    QMetaObject::Connection m_cancelConnection;
    bool m_cancelled = false;
    bool m_timedOut = false;
    bool m_busy = false;
    bool m_fromSpare = false;
    int m_runsServed = 0;
    std::map<QString, QByteArray> m_sources;
    QString m_sourcesBroken; // a "sources" field that is not a map of path to hash: never reused
    QTimer m_timer;
    std::unique_ptr<WitnessTrace> m_witness;        // set when started with a tracer (issue 19)
    std::unique_ptr<WorkerSandbox> m_sandbox;       // a local worker's scratch and confinement (issue 41)
    std::unique_ptr<RemoteSandbox> m_remoteSandbox; // a remote worker's
    // What waiting requests await (nextLine()); wakeUp() finishes them all. Not a signal of this
    // object: a deleted object's queued signals are dropped, and a waiting request would never
    // resume. A promise destroyed unfinished (with the runner) finishes as cancelled, so the
    // request resumes and sees the runner gone (docs/hacking.md, "Coroutines").
    std::vector<QPromise<void>> m_wakes;
};

} // namespace hotkernel
