// SPDX-License-Identifier: Apache-2.0
// What an ncu details page says about each launch beyond the kernel table's columns: the rule
// results with their estimated speedups, and occupancy, cache throughput, waves, clocks and
// cycles. Per launch, and folded per kernel for top_kernels. Pure; any thread.
#pragma once

#include "base/json.h"

#include <QByteArrayView>
#include <QString>

#include <map>
#include <optional>
#include <vector>

namespace hotkernel {

struct NcuRuleResult
{
    QString section;
    QString name;        // "SOLBottleneck", "TheoreticalOccupancy", ...
    QString type;        // "OPT", "WRN", "INF"
    QString description; // ncu's advice
    QString speedupType; // "local" or "global"; empty without an estimate
    std::optional<double> speedupPct;
};

struct NcuLaunchDetail
{
    QString id;
    QString name;
    QString grid;
    QString block;
    std::map<QString, double> metrics; // see NcuKernelDetails::metricKeys()
    std::vector<NcuRuleResult> rules;
};

class NcuKernelDetails
{
public:
    // Every launch of a details page, in report order. Throws UserError when data is not one.
    static std::vector<NcuLaunchDetail> parse(QByteArrayView data);
    // The keys metrics are stored under (duration_ns, elapsed_cycles, sm_clock_mhz, dram_clock_mhz,
    // theoretical_occupancy_pct, achieved_occupancy_pct, waves_per_sm, l1_throughput_pct,
    // l2_throughput_pct, dram_throughput_pct, sm_throughput_pct, memory_throughput_pct).
    static QStringList metricKeys();
    // One kernel's launches folded: metrics averaged, each rule result once (same rule and advice: its
    // largest estimate), rules with an estimated speedup first; with perLaunch, every launch's own figures as
    // "launches".
    static Json kernelJson(const std::vector<const NcuLaunchDetail *> &launches, bool perLaunch);
};

} // namespace hotkernel
