// SPDX-License-Identifier: Apache-2.0
// The command lines of a slurm:// session host (issue 24): every command runs as a step of the
// session's allocation (`srun --jobid=ID --overlap ... -- /bin/sh -c COMMAND`), stdin and stdout
// passed through, so workers, probes and copies work as over ssh. srun's own complaints (a step
// cancelled with its job, an allocation that expired) are told apart from the command's exit.
// A value; pure. Any thread.
#pragma once

#include "remote/hosturl.h"
#include "remote/remoteshell.h"

namespace hotkernel {

class SlurmStepShell : public RemoteShell
{
public:
    // stepArguments: srun's options for a step of job jobId (SlurmAllocation::stepArguments()).
    SlurmStepShell(HostUrl url, QString jobId, QStringList stepArguments, QString localRoot);

    QString display() const override { return m_url.toString(); }
    const QString &jobId() const { return m_jobId; }
    QString program() const override { return QStringLiteral("srun"); }
    QStringList commandArguments(const QString &shellCommand) const override;
    bool isTransportFailure(int exitCode, const QByteArray &stderrText) const override;
    QString describeFailure(const QByteArray &stderrText) const override;

    // The job's end as slurmstepd reported it on srun's stderr ("*** STEP 4.1 ON node CANCELLED AT
    // ... DUE TO TIME LIMIT ***"): TIMEOUT, PREEMPTED, NODE_FAIL or CANCELLED; empty when it says none.
    static QString endStateIn(const QByteArray &stderrText);
    // Slurm refused a new step because the job is over or about to be ("Unable to create step for
    // job 8: Job/step already completing or completed", "Slurm job 3 has expired").
    static bool saysJobIsOver(const QString &text);

private:
    HostUrl m_url;
    QString m_jobId;
    QStringList m_stepArguments;
};

} // namespace hotkernel
