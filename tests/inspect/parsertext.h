// SPDX-License-Identifier: Apache-2.0
// The parsers' results as text for the golden files (tests/golden.h): one line per record, every
// field in a fixed order, unset ones as "-", numbers to 10 significant digits (enough to see any
// change of a figure, few enough that the last bits of a unit conversion or a sum never show).
#pragma once

#include "base/json.h"
#include "inspect/kernelaggregator.h"
#include "inspect/ncusourceparser.h"
#include "inspect/sassinstruction.h"
#include "inspect/traceparser.h"

#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <type_traits>
#include <vector>

namespace hotkernel::parsertext {

inline QString number(double value)
{
    return QString::number(value, 'g', 10);
}

template <typename T> QString optional(const std::optional<T> &value)
{
    if (!value)
        return QStringLiteral("-");
    if constexpr (std::is_floating_point_v<T>)
        return number(*value);
    else
        return QString::number(*value);
}

// Strings quoted, so that an empty one and one with spaces or separators stay readable.
inline QString quoted(const QString &text)
{
    return QLatin1Char('"') + text + QLatin1Char('"');
}

inline QString line(const QString &record, const QStringList &fields)
{
    return record + QLatin1Char(' ') + fields.join(QStringLiteral(" | ")) + QLatin1Char('\n');
}

inline QString launches(const std::vector<KernelLaunch> &launches)
{
    QString out;
    for (size_t i = 0; i < launches.size(); ++i) {
        const KernelLaunch &l = launches[i];
        out += line(QStringLiteral("launch %1:").arg(i),
                    {QStringLiteral("name=") + quoted(l.name),
                     QStringLiteral("mangled=") + quoted(l.mangledName),
                     QStringLiteral("duration_ns=") + optional(l.durationNs),
                     QStringLiteral("grid=") + l.grid, QStringLiteral("block=") + l.block,
                     QStringLiteral("registers=") + optional(l.registersPerThread),
                     QStringLiteral("shared_bytes=") + optional(l.sharedMemoryBytes),
                     QStringLiteral("occupancy_pct=") + optional(l.achievedOccupancyPct),
                     QStringLiteral("dram_pct=") + optional(l.dramThroughputPct),
                     QStringLiteral("sm_pct=") + optional(l.smThroughputPct),
                     QStringLiteral("stream=") + optional(l.stream),
                     QStringLiteral("dram_bytes=") + optional(l.dramBytes),
                     QStringLiteral("flops=") + optional(l.flops),
                     QStringLiteral("tensor_pipe=") + QString::number(l.tensorPipeUsed)});
    }
    return out;
}

inline QString kernelTable(const KernelTable &table)
{
    QString out =
        line(QStringLiteral("table:"),
             {QStringLiteral("source=") + table.source, QStringLiteral("path=") + quoted(table.path),
              QStringLiteral("total_ns=") + number(table.totalNs),
              QStringLiteral("kernels=") + QString::number(table.kernels.size())});
    for (size_t i = 0; i < table.kernels.size(); ++i) {
        const KernelStat &k = table.kernels[i];
        out += line(QStringLiteral("kernel %1:").arg(i),
                    {QStringLiteral("name=") + quoted(k.name),
                     QStringLiteral("mangled=") + quoted(k.mangledName),
                     QStringLiteral("calls=") + QString::number(k.calls),
                     QStringLiteral("total_ns=") + number(k.totalNs),
                     QStringLiteral("avg_ns=") + number(k.avgNs),
                     QStringLiteral("min_ns=") + number(k.minNs),
                     QStringLiteral("max_ns=") + number(k.maxNs),
                     QStringLiteral("share=") + number(k.share),
                     QStringLiteral("grid=") + k.grid,
                     QStringLiteral("block=") + k.block,
                     QStringLiteral("registers=") + optional(k.registersPerThread),
                     QStringLiteral("shared_bytes=") + optional(k.sharedMemoryBytes),
                     QStringLiteral("occupancy_pct=") + optional(k.achievedOccupancyPct),
                     QStringLiteral("dram_pct=") + optional(k.dramThroughputPct),
                     QStringLiteral("sm_pct=") + optional(k.smThroughputPct),
                     QStringLiteral("stream=") + optional(k.stream),
                     QStringLiteral("dram_bytes=") + optional(k.dramBytes),
                     QStringLiteral("flops=") + optional(k.flops),
                     QStringLiteral("tensor_pipe=") + QString::number(k.tensorPipeUsed),
                     QStringLiteral("hint=") + k.boundHint,
                     QStringLiteral("reason=") + quoted(k.hintReason)});
    }
    return out;
}

inline QString traceSummary(const TraceSummary &summary)
{
    return line(QStringLiteral("trace:"),
                {QStringLiteral("processes=") + QString::number(summary.processes),
                 QStringLiteral("dropped=") + QString::number(summary.dropped),
                 QStringLiteral("bad_lines=") + QString::number(summary.badLines),
                 QStringLiteral("launches=") + QString::number(summary.launches.size())}) +
           launches(summary.launches);
}

// "key=value, ..." in the map's (sorted) order.
template <typename Value> QString mapText(const std::map<QString, Value> &map)
{
    QStringList pairs;
    for (const auto &[key, value] : map) {
        if constexpr (std::is_same_v<Value, QString>)
            pairs << key + QLatin1Char('=') + quoted(value);
        else
            pairs << key + QLatin1Char('=') + QString::number(value);
    }
    return QLatin1Char('{') + pairs.join(QStringLiteral(", ")) + QLatin1Char('}');
}

inline QString sassFunctions(const std::vector<SassFunction> &functions)
{
    QString out;
    for (size_t f = 0; f < functions.size(); ++f) {
        const SassFunction &fn = functions[f];
        out += line(QStringLiteral("function %1:").arg(f),
                    {QStringLiteral("name=") + quoted(fn.name),
                     QStringLiteral("demangled=") + quoted(fn.demangled), QStringLiteral("level=") + fn.level,
                     QStringLiteral("arch=") + fn.arch,
                     QStringLiteral("instructions=") + QString::number(fn.instructions.size()),
                     QStringLiteral("metadata=") + mapText(fn.metadata)});
        for (const SassInstruction &in : fn.instructions) {
            const QString address = in.address
                                        ? QStringLiteral("%1").arg(*in.address, 4, 16, QLatin1Char('0'))
                                        : QStringLiteral("-");
            out += line(QStringLiteral("  ") + address,
                        {QStringLiteral("label=") + in.label, QStringLiteral("opcode=") + in.opcode,
                         QStringLiteral("text=") + quoted(in.text),
                         QStringLiteral("stall=") + optional(in.stallSamples),
                         QStringLiteral("executed=") + optional(in.executed),
                         QStringLiteral("reasons=") + mapText(in.stallReasons)});
        }
    }
    return out;
}

inline QString sourceReports(const std::vector<SourceReport> &reports)
{
    QString out;
    for (size_t r = 0; r < reports.size(); ++r) {
        const SourceReport &report = reports[r];
        out += line(QStringLiteral("report %1:").arg(r),
                    {QStringLiteral("kernel=") + quoted(report.kernelName),
                     QStringLiteral("launches=") + QString::number(report.launches),
                     QStringLiteral("rows=") + QString::number(report.rows.size()),
                     QStringLiteral("total_samples=") + QString::number(report.totalSamples)});
        for (const SourceRow &row : report.rows)
            out += line(QStringLiteral("  ") + QString::number(row.address, 16),
                        {QStringLiteral("source=") + quoted(row.source),
                         QStringLiteral("stall=") + QString::number(row.stallSamples),
                         QStringLiteral("executed=") + QString::number(row.executed),
                         QStringLiteral("reasons=") + mapText(row.stallReasons)});
    }
    return out;
}

// cuobjdump --dump-resource-usage, per function.
inline QString resourceUsage(const std::map<QString, std::map<QString, QString>> &usage)
{
    QString out;
    for (const auto &[function, resources] : usage)
        out += line(QStringLiteral("function:"), {quoted(function), mapText(resources)});
    return out;
}

// JSON records (nvidia-smi's GPUs and apps) in the order the parser wrote their keys.
inline QString jsonRecords(const std::vector<Json> &records)
{
    QString out;
    for (size_t i = 0; i < records.size(); ++i)
        out += QStringLiteral("record %1: ").arg(i) + QString::fromStdString(records[i].dump()) +
               QLatin1Char('\n');
    return out;
}

} // namespace hotkernel::parsertext
