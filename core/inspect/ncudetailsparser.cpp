// SPDX-License-Identifier: Apache-2.0
#include "inspect/ncudetailsparser.h"

#include "base/usererror.h"
#include "inspect/csvreader.h"
#include "inspect/ncuvalue.h"

#include <algorithm>

namespace hotkernel {

namespace {

struct Columns
{
    qsizetype id = -1, kernel = -1, stream = -1, block = -1, grid = -1, metric = -1, unit = -1, value = -1;
};

qsizetype indexOf(const CsvReader &csv, QByteArrayView name)
{
    for (qsizetype i = 0; i < csv.size(); ++i) {
        if (csv.field(i) == name)
            return i;
    }
    return -1;
}

// "Kbyte/block" -> "Kbyte"
QByteArrayView stripPerBlock(QByteArrayView unit)
{
    const qsizetype slash = unit.indexOf('/');
    return slash < 0 ? unit : unit.first(slash);
}

void applyMetric(KernelLaunch &launch, QByteArrayView metric, QByteArrayView unit, QByteArrayView text)
{
    const std::optional<double> value = NcuValue::number(text);
    if (!value)
        return;
    if (metric == "Duration" || metric == "gpu__time_duration.sum") {
        if (const auto f = NcuValue::nanosecondsPer(unit))
            launch.durationNs = *value * *f;
    } else if (metric == "DRAM Throughput" ||
               metric == "dram__throughput.avg.pct_of_peak_sustained_elapsed") {
        launch.dramThroughputPct = *value;
    } else if (metric == "Compute (SM) Throughput" || metric == "SM Throughput" ||
               metric == "sm__throughput.avg.pct_of_peak_sustained_elapsed") {
        launch.smThroughputPct = *value;
    } else if (metric == "Achieved Occupancy" ||
               metric == "sm__warps_active.avg.pct_of_peak_sustained_active") {
        launch.achievedOccupancyPct = *value;
    } else if (metric == "Registers Per Thread" || metric == "launch__registers_per_thread") {
        launch.registersPerThread = int(*value);
    } else if (metric == "Static Shared Memory Per Block" || metric == "Dynamic Shared Memory Per Block" ||
               metric == "launch__shared_mem_per_block_static" ||
               metric == "launch__shared_mem_per_block_dynamic") {
        if (const auto f = NcuValue::bytesPer(stripPerBlock(unit)))
            launch.sharedMemoryBytes = launch.sharedMemoryBytes.value_or(0) + int(*value * *f + 0.5);
    }
}

} // namespace

std::vector<KernelLaunch> NcuDetailsParser::launches(QByteArrayView data)
{
    CsvReader csv(data);
    Columns c;
    // ncu may print ==PROF== lines or a banner before the header; the header names the columns.
    while (csv.readRow()) {
        c.metric = indexOf(csv, "Metric Name");
        c.kernel = indexOf(csv, "Kernel Name");
        if (c.metric >= 0 && c.kernel >= 0)
            break;
    }
    if (c.metric < 0 || c.kernel < 0)
        throw UserError(QStringLiteral(
            "This is not an ncu details page: no \"Kernel Name\" and \"Metric Name\" columns. "
            "Export one with `ncu --import REPORT.ncu-rep --csv --page details > details.csv`."));
    c.id = indexOf(csv, "ID");
    c.stream = indexOf(csv, "Stream");
    c.block = indexOf(csv, "Block Size");
    c.grid = indexOf(csv, "Grid Size");
    c.unit = indexOf(csv, "Metric Unit");
    c.value = indexOf(csv, "Metric Value");
    if (c.value < 0)
        throw UserError(
            QStringLiteral("This ncu CSV has no \"Metric Value\" column; export the details page with "
                           "`ncu --import REPORT.ncu-rep --csv --page details`."));
    const qsizetype needed = std::max({c.id, c.kernel, c.metric, c.unit, c.value});

    std::vector<KernelLaunch> out;
    QByteArray currentId;
    bool first = true;
    while (csv.readRow()) {
        if (csv.isBlank() || csv.size() <= needed)
            continue;
        const QByteArrayView id = c.id >= 0 ? csv.field(c.id) : QByteArrayView();
        // Rows of one launch are contiguous; a new ID (or, without IDs, a new name) starts a launch.
        const bool newLaunch =
            first || (c.id >= 0 ? id != QByteArrayView(currentId) : csv.text(c.kernel) != out.back().name);
        if (newLaunch) {
            first = false;
            currentId = id.toByteArray();
            KernelLaunch launch;
            launch.name = csv.text(c.kernel);
            if (c.stream >= 0)
                if (const auto s = NcuValue::number(csv.field(c.stream)))
                    launch.stream = int(*s);
            if (c.block >= 0)
                launch.block = csv.text(c.block);
            if (c.grid >= 0)
                launch.grid = csv.text(c.grid);
            out.push_back(std::move(launch));
        }
        applyMetric(out.back(), csv.field(c.metric), c.unit >= 0 ? csv.field(c.unit) : QByteArrayView(),
                    csv.field(c.value));
    }
    return out;
}

namespace {

// --print-summary per-kernel: rows of (kernel, section, metric) with min/max/average over its
// invocations; the kernel's rows are contiguous.
KernelTable parseSummary(CsvReader &csv, const QString &path)
{
    const qsizetype kernel = indexOf(csv, "Kernel Name"), metric = indexOf(csv, "Metric Name"),
                    unit = indexOf(csv, "Metric Unit"), calls = indexOf(csv, "Invocations"),
                    minimum = indexOf(csv, "Minimum"), maximum = indexOf(csv, "Maximum"),
                    average = indexOf(csv, "Average"), block = indexOf(csv, "Block Size"),
                    grid = indexOf(csv, "Grid Size");
    KernelAggregator aggregator;
    std::optional<KernelLaunch> current; // figures as averages
    KernelStat stat;
    const auto flush = [&] {
        if (!current)
            return;
        stat.name = current->name;
        stat.grid = current->grid;
        stat.block = current->block;
        stat.registersPerThread = current->registersPerThread;
        stat.sharedMemoryBytes = current->sharedMemoryBytes;
        stat.achievedOccupancyPct = current->achievedOccupancyPct;
        stat.dramThroughputPct = current->dramThroughputPct;
        stat.smThroughputPct = current->smThroughputPct;
        stat.totalNs = stat.avgNs * stat.calls;
        aggregator.addSummary(stat);
        current.reset();
        stat = KernelStat();
    };
    while (csv.readRow()) {
        if (csv.isBlank() || csv.size() <= average)
            continue;
        const QString name = csv.text(kernel);
        if (!current || current->name != name || current->grid != csv.text(grid) ||
            current->block != csv.text(block)) {
            flush();
            current = KernelLaunch();
            current->name = name;
            current->grid = csv.text(grid);
            current->block = csv.text(block);
            stat.calls = int(NcuValue::number(csv.field(calls)).value_or(1));
        }
        const QByteArrayView m = csv.field(metric);
        applyMetric(*current, m, csv.field(unit), csv.field(average));
        if (m == "Duration") {
            const double f = NcuValue::nanosecondsPer(csv.field(unit)).value_or(1.0);
            stat.avgNs = NcuValue::number(csv.field(average)).value_or(0) * f;
            stat.minNs = NcuValue::number(csv.field(minimum)).value_or(0) * f;
            stat.maxNs = NcuValue::number(csv.field(maximum)).value_or(0) * f;
        }
    }
    flush();
    return aggregator.table(QStringLiteral("ncu-summary"), path);
}

} // namespace

KernelTable NcuDetailsParser::parse(QByteArrayView data, const QString &path)
{
    {
        CsvReader csv(data);
        while (csv.readRow()) {
            if (indexOf(csv, "Metric Name") < 0 || indexOf(csv, "Kernel Name") < 0)
                continue;
            if (indexOf(csv, "Metric Value") < 0 && indexOf(csv, "Average") >= 0 &&
                indexOf(csv, "Invocations") >= 0)
                return parseSummary(csv, path);
            break;
        }
    }
    KernelAggregator aggregator;
    for (const KernelLaunch &launch : launches(data))
        aggregator.add(launch);
    return aggregator.table(QStringLiteral("ncu-details"), path);
}

} // namespace hotkernel
