// SPDX-License-Identifier: Apache-2.0
#include "inspect/ncurawparser.h"

#include "base/usererror.h"
#include "inspect/csvreader.h"
#include "inspect/ncuvalue.h"

namespace hotkernel {

namespace {

qsizetype indexOf(const std::vector<QByteArray> &header, QByteArrayView name)
{
    for (size_t i = 0; i < header.size(); ++i) {
        if (header[i] == name)
            return qsizetype(i);
    }
    return -1;
}

QByteArrayView stripPerBlock(QByteArrayView unit)
{
    const qsizetype slash = unit.indexOf('/');
    return slash < 0 ? unit : unit.first(slash);
}

} // namespace

std::vector<KernelLaunch> NcuRawParser::launches(QByteArrayView data)
{
    CsvReader csv(data);
    std::vector<QByteArray> header;
    while (csv.readRow()) {
        bool hasKernel = false;
        bool hasMetric = false;
        for (qsizetype i = 0; i < csv.size(); ++i) {
            hasKernel |= csv.field(i) == "Kernel Name";
            hasMetric |= csv.field(i).contains("__"); // raw metric names: unit__counter.rollup
        }
        if (hasKernel && hasMetric) {
            for (qsizetype i = 0; i < csv.size(); ++i)
                header.push_back(csv.field(i).toByteArray());
            break;
        }
    }
    if (header.empty())
        throw UserError(
            QStringLiteral("This is not an ncu raw page: no \"Kernel Name\" column beside metric names. "
                           "Export one with `ncu --import REPORT.ncu-rep --csv --page raw > raw.csv`."));
    const qsizetype kernel = indexOf(header, "Kernel Name");
    const qsizetype stream = indexOf(header, "Stream");
    const qsizetype block = indexOf(header, "Block Size");
    const qsizetype grid = indexOf(header, "Grid Size");
    const qsizetype duration = indexOf(header, "gpu__time_duration.sum");
    // The details page's "DRAM Throughput" is dram__throughput where ncu collects it, and
    // dram__cycles_active on the H200 captures (same value, 71.62%, in both pages).
    qsizetype dram = indexOf(header, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
    if (dram < 0)
        dram = indexOf(header, "dram__cycles_active.avg.pct_of_peak_sustained_elapsed");
    const qsizetype sm = indexOf(header, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    const qsizetype occupancy = indexOf(header, "sm__warps_active.avg.pct_of_peak_sustained_active");
    const qsizetype registers = indexOf(header, "launch__registers_per_thread");
    const qsizetype sharedStatic = indexOf(header, "launch__shared_mem_per_block_static");
    const qsizetype sharedDynamic = indexOf(header, "launch__shared_mem_per_block_dynamic");
    // The roofline work of a launch (present under --set full): DRAM bytes, and FP operations the
    // way ncu's SpeedOfLight_RooflineChart section counts them: per-cycle instruction rates summed
    // over the SM sub-partitions, weighted (FMA 2; packed half add/mul 2, half FMA 4), times the
    // elapsed cycles of one sub-partition.
    const qsizetype bytesRead = indexOf(header, "dram__bytes_read.sum");
    const qsizetype bytesWritten = indexOf(header, "dram__bytes_write.sum");
    const qsizetype cycles = indexOf(header, "smsp__cycles_elapsed.avg");
    struct FpOp
    {
        const char *name;
        double weight;
    };
    static constexpr FpOp kFpOps[] = {{"fadd", 1}, {"fmul", 1}, {"ffma", 2}, {"hadd", 2}, {"hmul", 2},
                                      {"hfma", 4}, {"dadd", 1}, {"dmul", 1}, {"dfma", 2}};
    struct FpRate
    {
        qsizetype column;
        double weight;
    };
    std::vector<FpRate> fpRates;
    for (const FpOp &op : kFpOps) {
        const QByteArray name = QByteArray("smsp__sass_thread_inst_executed_op_") + QByteArray(op.name) +
                                QByteArray("_pred_on.sum.per_cycle_elapsed");
        fpRates.push_back({indexOf(header, name), op.weight});
    }
    std::vector<qsizetype> tensorPipes;
    for (const char *op : {"hmma", "imma", "dmma", "gmma"}) {
        const QByteArray name = QByteArray("sm__inst_executed_pipe_tensor_op_") + QByteArray(op) +
                                QByteArray(".sum.pct_of_peak_sustained_elapsed");
        const qsizetype i = indexOf(header, name);
        if (i >= 0)
            tensorPipes.push_back(i);
    }

    // The units row follows the header: its kernel-name cell is empty.
    std::vector<QByteArray> units(header.size());
    std::vector<KernelLaunch> out;
    bool unitsSeen = false;
    while (csv.readRow()) {
        if (csv.isBlank() || csv.size() <= kernel)
            continue;
        if (!unitsSeen && csv.field(kernel).isEmpty()) {
            for (qsizetype i = 0; i < csv.size() && i < qsizetype(units.size()); ++i)
                units[size_t(i)] = csv.field(i).toByteArray();
            unitsSeen = true;
            continue;
        }
        unitsSeen = true;
        const auto num = [&csv](qsizetype i) {
            return i >= 0 ? NcuValue::number(csv.field(i)) : std::nullopt;
        };
        KernelLaunch l;
        l.name = csv.text(kernel);
        if (const auto s = num(stream))
            l.stream = int(*s);
        if (block >= 0)
            l.block = csv.text(block);
        if (grid >= 0)
            l.grid = csv.text(grid);
        if (const auto d = num(duration)) {
            // A missing unit row means ncu printed base units (nanoseconds).
            const auto f = NcuValue::nanosecondsPer(units[size_t(duration)]);
            l.durationNs = *d * f.value_or(1.0);
        }
        l.dramThroughputPct = num(dram);
        l.smThroughputPct = num(sm);
        l.achievedOccupancyPct = num(occupancy);
        if (const auto r = num(registers))
            l.registersPerThread = int(*r);
        for (const qsizetype i : {sharedStatic, sharedDynamic}) {
            if (const auto b = num(i)) {
                const double f = NcuValue::bytesPer(stripPerBlock(units[size_t(i)])).value_or(1.0);
                l.sharedMemoryBytes = l.sharedMemoryBytes.value_or(0) + int(*b * f + 0.5);
            }
        }
        const auto bytes = [&](qsizetype i) -> std::optional<double> {
            const auto v = num(i);
            if (!v)
                return std::nullopt;
            if (units[size_t(i)].isEmpty())
                return *v; // no units row: ncu printed base units (bytes)
            const auto f = NcuValue::bytesPer(units[size_t(i)]);
            return f ? std::optional<double>(*v * *f) : std::nullopt;
        };
        const auto read = bytes(bytesRead);
        const auto written = bytes(bytesWritten);
        if (read && written && *read >= 0 && *written >= 0)
            l.dramBytes = *read + *written;
        const auto elapsed = num(cycles);
        bool allRates = elapsed.has_value();
        double perCycle = 0;
        for (const FpRate &rate : fpRates) {
            const auto v = num(rate.column);
            allRates = allRates && v;
            perCycle += v.value_or(0) * rate.weight;
        }
        if (allRates)
            l.flops = perCycle * *elapsed;
        for (const qsizetype i : tensorPipes)
            l.tensorPipeUsed = l.tensorPipeUsed || num(i).value_or(0) > 0;
        out.push_back(std::move(l));
    }
    return out;
}

KernelTable NcuRawParser::parse(QByteArrayView data, const QString &path)
{
    KernelAggregator aggregator;
    for (const KernelLaunch &launch : launches(data))
        aggregator.add(launch);
    return aggregator.table(QStringLiteral("ncu-raw"), path);
}

} // namespace hotkernel
