// SPDX-License-Identifier: Apache-2.0
#include "slurm/slurmjobstatus.h"

#include <QStringList>

namespace hotkernel {

QString SlurmJobStatus::squeueFormat()
{
    return QStringLiteral("%i|%T|%r|%l|%N");
}

std::optional<SlurmJobStatus> SlurmJobStatus::parseLine(const QString &line)
{
    const QStringList fields = line.trimmed().split(QLatin1Char('|'));
    if (fields.size() != 5 || fields[0].isEmpty() || fields[1].isEmpty())
        return std::nullopt;
    return SlurmJobStatus{fields[0], fields[1], fields[2], fields[3], fields[4]};
}

bool SlurmJobStatus::isActive() const
{
    static const QStringList active{
        QStringLiteral("PENDING"),       QStringLiteral("RUNNING"),      QStringLiteral("CONFIGURING"),
        QStringLiteral("COMPLETING"),    QStringLiteral("SUSPENDED"),    QStringLiteral("REQUEUED"),
        QStringLiteral("RESIZING"),      QStringLiteral("SIGNALING"),    QStringLiteral("STAGE_OUT"),
        QStringLiteral("RESV_DEL_HOLD"), QStringLiteral("REQUEUE_HOLD"), QStringLiteral("REQUEUE_FED")};
    return active.contains(state);
}

QString SlurmJobStatus::describeEnd(const SlurmHost &host) const
{
    const QString where =
        QStringLiteral("The Slurm allocation (job %1 in %2)").arg(jobId, host.describePartition());
    const QString partitionFlag =
        host.partition.isEmpty() ? QString() : QStringLiteral(" -p ") + host.partition;
    if (state == QLatin1String("TIMEOUT") || state == QLatin1String("DEADLINE")) {
        QString limit = timeLimit.isEmpty() ? host.time : timeLimit;
        return where +
               QStringLiteral(" reached its time limit%1 and Slurm ended it, with the workers running in it. "
                              "Ask for more time in the host, e.g. slurm://%2?time=120 (minutes), within the "
                              "partition's limit that `sinfo%3 -o %l` shows, and run again.")
                   .arg(limit.isEmpty() ? QString() : QStringLiteral(" (") + limit + QLatin1Char(')'),
                        host.partition, partitionFlag);
    }
    if (state == QLatin1String("CANCELLED"))
        return where +
               QStringLiteral(" was cancelled (scancel, by you or an administrator), with the workers "
                              "running in it. Run again to queue for a new allocation.");
    if (state == QLatin1String("PREEMPTED"))
        return where +
               QStringLiteral(" was preempted by a job of higher priority, with the workers running in "
                              "it. Run again to queue for a new one, or use a partition or QOS "
                              "(?qos=...) that is not preempted (`scontrol show partition%1` shows its "
                              "PreemptMode).")
                   .arg(host.partition.isEmpty() ? QString() : QLatin1Char(' ') + host.partition);
    if (state == QLatin1String("NODE_FAIL") || state == QLatin1String("BOOT_FAIL"))
        return where + QStringLiteral(" ended because its node%1 failed (%2). Run again to get another node; "
                                      "tell your administrators if it keeps happening.")
                           .arg(nodes.isEmpty() ? QString() : QLatin1Char(' ') + nodes, state);
    if (state == QLatin1String("OUT_OF_MEMORY"))
        return where + QStringLiteral(" ran out of memory and Slurm ended it. Ask the administrators for the "
                                      "partition's memory options, or use a partition with more memory.");
    if (state.isEmpty())
        return where +
               QStringLiteral(" is gone, and Slurm no longer reports why (squeue does not list it and "
                              "sacct has no record). Run again to queue for a new allocation.");
    return where +
           QStringLiteral(" ended (%1%2) without hotkernel releasing it. Run again to queue for a new "
                          "allocation; `scontrol show job %3` may say more while Slurm remembers it.")
               .arg(state,
                    reason.isEmpty() || reason == QLatin1String("None")
                        ? QString()
                        : QStringLiteral(", reason ") + reason,
                    jobId);
}

} // namespace hotkernel
