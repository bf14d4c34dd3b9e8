// SPDX-License-Identifier: Apache-2.0
// One Slurm allocation, taken with salloc and held for a session (or one verify); commands run in
// it as `srun --jobid=ID --overlap` steps (wrap()). Lives on the Session's thread; never blocks it.
#pragma once

#include "process/processspec.h"
#include "slurm/slurmhost.h"
#include "slurm/slurmjobstatus.h"

#include <QCoroTask>
#include <QObject>
#include <QPointer>

#include <chrono>
#include <memory>
#include <optional>

class QProcess;

namespace hotkernel {

class Job;

// salloc runs a keeper command on this machine (`sh -c 'echo ...; exec cat'`) for as long as the
// allocation is held: its stdin is a pipe from hotkernel, so the allocation is relinquished when
// hotkernel closes it (release()) or exits in any way, kill -9 included; `--kill-command` makes
// salloc end the keeper, and so exit, the moment Slurm revokes the allocation (time limit, scancel,
// preemption), which is how the end is noticed without polling.
class SlurmAllocation : public QObject
{
    Q_OBJECT
public:
    enum class State {
        NotStarted,
        Pending,   // salloc waits in the queue
        Running,   // granted: wrap() works
        Ended,     // Slurm ended it (time limit, scancel, preemption, node failure): error() says which
        Failed,    // Slurm never granted it (bad partition, salloc missing): error() says why
        Cancelled, // cancel() before it ran
        Releasing,
        Released,
    };
    Q_ENUM(State)

    explicit SlurmAllocation(SlurmHost host, QObject *parent = nullptr);
    // Relinquishes a held allocation without waiting (the keeper's stdin closes; scancel too).
    ~SlurmAllocation() override;

    // How often squeue is asked while the job waits in the queue (default 2 s).
    void setPollInterval(std::chrono::milliseconds interval) { m_pollInterval = interval; }

    // Takes the allocation and waits until it runs, reporting the queue's word as progress (to job
    // too, when given). True once it runs; false when cancelled (cancel() or the job's
    // cancellation); throws UserError when Slurm refuses it or it ends before it runs.
    QCoro::Task<bool> acquire(Job *job = nullptr);

    // spec run as a step of this allocation: `srun --jobid=ID --overlap --nodes=1 --ntasks=1 ...
    // -- PROGRAM ARGS`, its stdin, stdout and stderr passed through (the worker protocol runs
    // unchanged), its extra environment exported by srun. Throws UserError unless Running.
    ProcessSpec wrap(const ProcessSpec &spec) const;
    // srun's options for such a step, without the program (workingDirectory empty: srun's own).
    QStringList stepArguments(const QString &workingDirectory) const;

    // After a wrapped command failed: the allocation's end message when Slurm ended it (waiting a
    // little for Slurm to say why), else empty (the command failed on its own). ending: Slurm
    // already refused a step because the job is over, though squeue may still call it running
    // (its time limit passed, and the controller's periodic check has not ended it yet): wait for
    // the end anyway.
    QCoro::Task<QString> checkEnded(bool ending = false);

    // Ends the allocation and waits until Slurm no longer holds it: relinquished through the
    // keeper, scancel when that is not enough. Safe in every state; cancels a pending request.
    QCoro::Task<> release();
    // Cancels a pending acquire(); releases a running allocation (without waiting).
    void cancel();

    const SlurmHost &host() const { return m_host; }
    State state() const { return m_state; }
    QString jobId() const { return m_jobId; }
    QString jobName() const { return m_jobName; } // unique: hotkernel-PID-RANDOM
    QString nodes() const { return m_nodes; }
    int cpus() const { return m_cpus; }
    QString error() const { return m_error; }
    long long keeperProcessId() const { return m_keeperPid; } // salloc's supervisor or salloc itself

Q_SIGNALS:
    void progressChanged(const QString &message);
    void stateChanged(hotkernel::SlurmAllocation::State state);
    // Slurm ended a running allocation; error names the job, the partition, the cause and the fix.
    void ended(const QString &error);

private:
    void setState(State state);
    void startKeeper();
    void readKeeperOutput();
    void readKeeperError();
    void progress(const QString &message);
    QCoro::Task<> pollWhilePending();
    QCoro::Task<> keeperExited();
    QCoro::Task<std::optional<SlurmJobStatus>> queryStatus();
    // The job's state once it has left RUNNING/COMPLETING (or the last one seen, after a while).
    QCoro::Task<std::optional<SlurmJobStatus>> finalStatus();
    QCoro::Task<> scancel();
    void scancelDetached();
    QString sallocFailure() const;

    SlurmHost m_host;
    State m_state = State::NotStarted;
    std::unique_ptr<QProcess> m_keeper;
    long long m_keeperPid = 0;
    QByteArray m_keeperOutput;
    QByteArray m_keeperError;
    QString m_jobName;
    QString m_jobId;
    QString m_nodes;
    int m_cpus = 0;
    QString m_error;
    QString m_lastProgress;
    std::chrono::milliseconds m_pollInterval{2000};
};

} // namespace hotkernel
