// SPDX-License-Identifier: Apache-2.0
// What the card was doing during one timed run (issue 41): the SM clock before and after it, the
// clock-event reasons, and whether the other side's stopped processes still computed on the GPU
// (work they queued before the stop, or a process the stop missed). The rule that drops a pair
// whose two runs ran under different conditions is pure; any thread.
#pragma once

#include "base/json.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace hotkernel {

struct BusyProcess
{
    long long pid = 0;
    int smPercent = 0; // the highest SM use of its samples in the run
};

struct RunConditions
{
    std::optional<double> clockBeforeMhz;
    std::optional<double> clockAfterMhz;
    QStringList clockReasons; // clock-event reasons seen before or after the run
    QString clocksUnknown;    // why there is no clock (no NVML, a CPU target), else empty
    // The other side's stopped processes with GPU samples inside the run; judged only when
    // frozenUnknown is empty.
    std::vector<BusyProcess> frozenBusy;
    QString frozenUnknown; // why their use was not judged (no NVML, nothing stopped, a short run)

    // Mean of the two readings; nullopt when neither was read.
    std::optional<double> clockMhz() const;
    Json json() const;

    // From GpuProbe::clocks() before the run and GpuProbe::processUtilization(runStartUs) read right
    // after it (before the thaw), with the pids that were stopped. A sample stamped T covers the
    // sample period that ends at T, so only samples from runStartUs + one period on show the run
    // alone: the stopped side's own previous run may fill the first period. The period is the one
    // NVML's samples show, else the longest NVML documents (1 s).
    static RunConditions fromProbes(const Json &clocksBefore, const Json &utilisationAfter,
                                    const QList<long long> &frozenPids, qint64 runStartUs, qint64 runEndUs);
};

class RunConditionRule
{
public:
    // SM clocks of the two sides further apart than this, relative to the higher: different runs.
    static constexpr double ClockTolerance = 0.05;
    // NVML's longest per-process sample period (its reference: 1/6 s to 1 s by product).
    static constexpr qint64 LongestSamplePeriodUs = 1000000;

    // Why the pair of runs b (the baseline's) and c (the candidate's) cannot be compared, in words
    // for the result; empty when they can, or when nothing could be read (that is said elsewhere).
    static QString pairProblem(const RunConditions &b, const RunConditions &c,
                               double tolerance = ClockTolerance);
    // Whether pairProblem's reason is that a stopped side computed (not only a clock difference).
    static bool frozenSideComputed(const RunConditions &b, const RunConditions &c);
};

} // namespace hotkernel
