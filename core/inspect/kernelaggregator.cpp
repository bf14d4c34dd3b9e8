// SPDX-License-Identifier: Apache-2.0
#include "inspect/kernelaggregator.h"

#include <algorithm>

namespace hotkernel {

void KernelAggregator::add(const KernelLaunch &launch)
{
    auto it = m_index.constFind(launch.name);
    size_t index;
    if (it == m_index.constEnd()) {
        index = m_rows.size();
        m_index.insert(launch.name, index);
        Accumulator a;
        a.stat.name = launch.name;
        a.stat.mangledName = launch.mangledName;
        m_rows.push_back(std::move(a));
    } else {
        index = *it;
    }
    Accumulator &a = m_rows[index];
    KernelStat &s = a.stat;
    ++s.calls;
    if (launch.durationNs) {
        const double d = *launch.durationNs;
        s.minNs = a.timed == 0 ? d : std::min(s.minNs, d);
        s.maxNs = a.timed == 0 ? d : std::max(s.maxNs, d);
        s.totalNs += d;
        ++a.timed;
        s.avgNs = s.totalNs / a.timed;
    }
    // Launch shape and resources: the first launch that reports them (a kernel launched with
    // several shapes keeps its first; the per-launch detail is in the report itself).
    if (s.grid.isEmpty())
        s.grid = launch.grid;
    if (s.block.isEmpty())
        s.block = launch.block;
    if (!s.registersPerThread)
        s.registersPerThread = launch.registersPerThread;
    if (!s.sharedMemoryBytes)
        s.sharedMemoryBytes = launch.sharedMemoryBytes;
    if (!s.stream)
        s.stream = launch.stream;
    const double weight = launch.durationNs && *launch.durationNs > 0 ? *launch.durationNs : 1.0;
    if (launch.achievedOccupancyPct) {
        a.occupancySum += *launch.achievedOccupancyPct * weight;
        a.occupancyWeight += weight;
    }
    if (launch.dramThroughputPct) {
        a.dramSum += *launch.dramThroughputPct * weight;
        a.dramWeight += weight;
    }
    if (launch.smThroughputPct) {
        a.smSum += *launch.smThroughputPct * weight;
        a.smWeight += weight;
    }
    if (launch.dramBytes && launch.flops) {
        a.bytesSum += *launch.dramBytes;
        a.flopsSum += *launch.flops;
        ++a.workLaunches;
    }
    s.tensorPipeUsed = s.tensorPipeUsed || launch.tensorPipeUsed;
}

void KernelAggregator::addSummary(KernelStat stat)
{
    // A kernel listed once per launch configuration folds into one row.
    if (const auto it = m_index.constFind(stat.name); it != m_index.constEnd()) {
        KernelStat &s = m_rows[*it].stat;
        s.minNs = std::min(s.minNs, stat.minNs);
        s.maxNs = std::max(s.maxNs, stat.maxNs);
        s.calls += stat.calls;
        s.totalNs += stat.totalNs;
        s.avgNs = s.calls ? s.totalNs / s.calls : 0;
        return;
    }
    m_index.insert(stat.name, m_rows.size());
    Accumulator a;
    a.stat = std::move(stat);
    a.timed = a.stat.calls;
    m_rows.push_back(std::move(a));
}

KernelTable KernelAggregator::table(const QString &source, const QString &path) const
{
    KernelTable table;
    table.source = source;
    table.path = path;
    table.kernels.reserve(m_rows.size());
    for (const Accumulator &a : m_rows) {
        KernelStat s = a.stat;
        if (a.occupancyWeight > 0)
            s.achievedOccupancyPct = a.occupancySum / a.occupancyWeight;
        if (a.dramWeight > 0)
            s.dramThroughputPct = a.dramSum / a.dramWeight;
        if (a.smWeight > 0)
            s.smThroughputPct = a.smSum / a.smWeight;
        if (a.workLaunches > 0) {
            s.dramBytes = a.bytesSum / a.workLaunches;
            s.flops = a.flopsSum / a.workLaunches;
        }
        table.totalNs += s.totalNs;
        table.kernels.push_back(std::move(s));
    }
    for (KernelStat &s : table.kernels) {
        s.share = table.totalNs > 0 ? s.totalNs / table.totalNs : 0;
        applyHint(s);
    }
    std::stable_sort(table.kernels.begin(), table.kernels.end(),
                     [](const KernelStat &a, const KernelStat &b) { return a.totalNs > b.totalNs; });
    return table;
}

void KernelAggregator::applyHint(KernelStat &s)
{
    const auto pct = [](double v) -> QString { return QString::number(v, 'f', 1) + QLatin1Char('%'); };
    if (!s.dramThroughputPct && !s.smThroughputPct) {
        s.boundHint.clear();
        s.hintReason =
            QStringLiteral("no throughput figures in this source; profile the kernel with ncu for a hint");
        return;
    }
    const double dram = s.dramThroughputPct.value_or(0);
    const double sm = s.smThroughputPct.value_or(0);
    if (dram >= kBusyPct || sm >= kBusyPct) {
        const bool memory = dram >= sm;
        s.boundHint = memory ? QStringLiteral("memory") : QStringLiteral("compute");
        s.hintReason =
            memory ? QStringLiteral("DRAM throughput %1 of peak (>= 60%); SM %2").arg(pct(dram), pct(sm))
                   : QStringLiteral("SM throughput %1 of peak (>= 60%); DRAM %2").arg(pct(sm), pct(dram));
        return;
    }
    if (s.dramThroughputPct && s.smThroughputPct) {
        s.boundHint = QStringLiteral("latency");
        s.hintReason =
            QStringLiteral("DRAM %1 and SM %2 of peak, both below 60%: latency, occupancy or launch bound")
                .arg(pct(dram), pct(sm));
        return;
    }
    s.boundHint.clear();
    s.hintReason =
        QStringLiteral("only one throughput figure (%1) below 60%; need both DRAM and SM throughput")
            .arg(pct(s.dramThroughputPct ? dram : sm));
}

} // namespace hotkernel
