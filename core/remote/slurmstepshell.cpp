// SPDX-License-Identifier: Apache-2.0
#include "remote/slurmstepshell.h"

#include "slurm/slurmjobstatus.h"

#include <QRegularExpression>

namespace hotkernel {

namespace {
// slurmstepd's banner when it ends a step or a job, relayed by srun.
const QRegularExpression &cancelledBanner()
{
    static const QRegularExpression banner(
        QStringLiteral("\\*\\*\\* (STEP|JOB) \\S+ ON \\S+ CANCELLED AT \\S+( DUE TO ([A-Z ]+?))? \\*\\*\\*"));
    return banner;
}

// An srun error that is not about how a task ended ("srun: error: node: task 0: Exited with exit
// code 3" is the command's own failure, which srun reports too).
bool hasOwnSrunError(const QByteArray &stderrText)
{
    static const QRegularExpression taskReport(QStringLiteral("^srun: error: \\S+: tasks? [0-9,-]+: "));
    for (const QByteArray &raw : stderrText.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.startsWith(QLatin1String("srun: error:")) && !taskReport.match(line).hasMatch())
            return true;
    }
    return false;
}

QString lastSlurmLine(const QByteArray &stderrText)
{
    QString said;
    for (const QByteArray &raw : stderrText.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.startsWith(QLatin1String("srun:")) || line.startsWith(QLatin1String("slurmstepd")))
            said = line;
    }
    return said;
}
} // namespace

SlurmStepShell::SlurmStepShell(HostUrl url, QString jobId, QStringList stepArguments, QString localRoot)
    : RemoteShell(std::move(localRoot), url.python), m_url(std::move(url)), m_jobId(std::move(jobId)),
      m_stepArguments(std::move(stepArguments))
{}

QStringList SlurmStepShell::commandArguments(const QString &shellCommand) const
{
    return m_stepArguments +
           QStringList{QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"), shellCommand};
}

QString SlurmStepShell::endStateIn(const QByteArray &stderrText)
{
    const QRegularExpressionMatch m = cancelledBanner().match(QString::fromUtf8(stderrText));
    if (!m.hasMatch())
        return {};
    const QString cause = m.captured(3);
    if (cause == QLatin1String("TIME LIMIT"))
        return QStringLiteral("TIMEOUT");
    if (cause == QLatin1String("PREEMPTION"))
        return QStringLiteral("PREEMPTED");
    if (cause == QLatin1String("NODE FAILURE"))
        return QStringLiteral("NODE_FAIL");
    return QStringLiteral("CANCELLED");
}

bool SlurmStepShell::saysJobIsOver(const QString &text)
{
    return text.contains(QLatin1String("already completing or completed")) ||
           text.contains(QLatin1String("has expired")) || text.contains(QLatin1String("Invalid job id"));
}

bool SlurmStepShell::isTransportFailure(int exitCode, const QByteArray &stderrText) const
{
    return exitCode != 0 && (!endStateIn(stderrText).isEmpty() || hasOwnSrunError(stderrText));
}

QString SlurmStepShell::describeFailure(const QByteArray &stderrText) const
{
    SlurmJobStatus status;
    status.jobId = m_jobId;
    status.state = endStateIn(stderrText);
    if (!status.state.isEmpty())
        return QStringLiteral("host %1: %2").arg(display(), status.describeEnd(m_url.slurm));
    const QString said = lastSlurmLine(stderrText);
    return QStringLiteral("host %1: a step of Slurm job %2 could not run there%3. The allocation may have "
                          "ended (`squeue -j %2` shows whether it still runs); the next call takes a new one "
                          "when it has.")
        .arg(display(), m_jobId, said.isEmpty() ? QString() : QStringLiteral(" (srun said: %1)").arg(said));
}

} // namespace hotkernel
