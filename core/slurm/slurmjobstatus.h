// SPDX-License-Identifier: Apache-2.0
// What squeue says about one job (`--format=%i|%T|%r|%l|%N`), and what to tell the user when an
// allocation ended under hotkernel's feet. Pure; any thread.
#pragma once

#include "slurm/slurmhost.h"

#include <QString>

#include <optional>

namespace hotkernel {

struct SlurmJobStatus
{
    QString jobId;
    QString state;     // PENDING, RUNNING, COMPLETING, TIMEOUT, CANCELLED, PREEMPTED, NODE_FAIL, ...
    QString reason;    // squeue's %r: Resources, Priority, TimeLimit, None, ...
    QString timeLimit; // squeue's %l, e.g. 1:00
    QString nodes;

    // The format string that parseLine() reads.
    static QString squeueFormat();
    static std::optional<SlurmJobStatus> parseLine(const QString &line);

    // Still holding (or about to hold) resources: pending, running, completing, ...
    bool isActive() const;
    bool isPending() const { return state == QLatin1String("PENDING"); }
    bool isRunning() const { return state == QLatin1String("RUNNING"); }

    // The error for an allocation that ended without hotkernel releasing it: names the job, the
    // partition, what ended it and what to do.
    QString describeEnd(const SlurmHost &host) const;
};

} // namespace hotkernel
