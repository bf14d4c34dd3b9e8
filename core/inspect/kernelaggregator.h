// SPDX-License-Identifier: Apache-2.0
// Folds per-launch records from any source into a KernelTable: one row per kernel name, heaviest
// first, with shares and the memory/compute/latency hint. Pure; any thread.
#pragma once

#include "inspect/kernelstat.h"

#include <QHash>

namespace hotkernel {

// One kernel launch as a report describes it; unset figures stay unset.
struct KernelLaunch
{
    QString name;
    QString mangledName;
    std::optional<double> durationNs;
    QString grid;
    QString block;
    std::optional<int> registersPerThread;
    std::optional<int> sharedMemoryBytes;
    std::optional<double> achievedOccupancyPct;
    std::optional<double> dramThroughputPct;
    std::optional<double> smThroughputPct;
    std::optional<int> stream;
    std::optional<double> dramBytes;
    std::optional<double> flops;
    bool tensorPipeUsed = false;
};

class KernelAggregator
{
public:
    void add(const KernelLaunch &launch);
    // A row that is already a per-kernel summary (nsys kern-sum).
    void addSummary(KernelStat stat);
    // The table, sorted by total time (descending), shares and hints filled.
    KernelTable table(const QString &source, const QString &path) const;

    // The hint rule, in one place: DRAM throughput >= 60% of peak -> "memory"; SM throughput
    // >= 60% -> "compute" (both: the higher one wins); both known and below 60% -> "latency"
    // (neither unit is busy: launch overhead, too few warps or dependent stalls bound it).
    // Without throughput figures the hint stays empty and the reason says what would tell.
    static void applyHint(KernelStat &stat);
    static constexpr double kBusyPct = 60.0;

private:
    struct Accumulator
    {
        KernelStat stat;
        int timed = 0;
        // Percentages are averaged weighted by each launch's duration, so a 2 us warm-up launch
        // does not count as much as a 150 us one.
        double occupancySum = 0;
        double occupancyWeight = 0;
        double dramSum = 0;
        double dramWeight = 0;
        double smSum = 0;
        double smWeight = 0;
        // Launches that report both bytes and FLOPs, and their sums (averaged per call).
        int workLaunches = 0;
        double bytesSum = 0;
        double flopsSum = 0;
    };
    std::vector<Accumulator> m_rows;
    QHash<QString, size_t> m_index;
};

} // namespace hotkernel
