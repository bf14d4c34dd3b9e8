// SPDX-License-Identifier: Apache-2.0
#include "inspect/inspectformat.h"

namespace hotkernel::InspectFormat {

namespace {

template <typename T> Json optional(const std::optional<T> &value)
{
    return value ? Json(*value) : Json(nullptr);
}

QString pct(const std::optional<double> &v)
{
    return v ? QString::number(*v, 'f', 1) : QStringLiteral("-");
}

Json nullable(const char *type, const char *description)
{
    return Json{{"type", Json::array({type, "null"})}, {"description", description}};
}

} // namespace

QString duration(double ns)
{
    if (ns >= 1e6)
        return QString::number(ns / 1e6, 'f', 3) + QStringLiteral(" ms");
    if (ns >= 1e3)
        return QString::number(ns / 1e3, 'f', 2) + QStringLiteral(" us");
    return QString::number(ns, 'f', 0) + QStringLiteral(" ns");
}

QString shorten(const QString &text, int width)
{
    if (text.size() <= width)
        return text;
    return text.left(width - 3) + QStringLiteral("...");
}

Json kernelStat(const KernelStat &s)
{
    return Json{{"name", toStd(s.name)},
                {"calls", s.calls},
                {"total_ns", s.totalNs},
                {"avg_ns", s.avgNs},
                {"min_ns", s.minNs},
                {"max_ns", s.maxNs},
                {"share", s.share},
                {"grid", toStd(s.grid)},
                {"block", toStd(s.block)},
                {"registers_per_thread", optional(s.registersPerThread)},
                {"shared_memory_bytes", optional(s.sharedMemoryBytes)},
                {"achieved_occupancy_pct", optional(s.achievedOccupancyPct)},
                {"dram_throughput_pct", optional(s.dramThroughputPct)},
                {"sm_throughput_pct", optional(s.smThroughputPct)},
                {"hint", toStd(s.boundHint)},
                {"hint_reason", toStd(s.hintReason)}};
}

Json kernelStatSchema()
{
    return Json{
        {"type", "object"},
        {"properties",
         {{"name",
           {{"type", "string"},
            {"description", "kernel name as the report prints it (demangled where it can)"}}},
          {"calls", {{"type", "integer"}, {"description", "launches in the report"}}},
          {"total_ns", {{"type", "number"}, {"description", "device time over all launches, ns"}}},
          {"avg_ns", {{"type", "number"}, {"description", "mean device time per launch, ns"}}},
          {"min_ns", {{"type", "number"}, {"description", "shortest launch, ns"}}},
          {"max_ns", {{"type", "number"}, {"description", "longest launch, ns"}}},
          {"share", {{"type", "number"}, {"description", "share of all kernel time in the report, 0..1"}}},
          {"grid",
           {{"type", "string"},
            {"description", "grid of the first launch, \"(x, y, z)\"; empty when unknown"}}},
          {"block",
           {{"type", "string"},
            {"description", "block of the first launch, \"(x, y, z)\"; empty when unknown"}}},
          {"registers_per_thread", nullable("integer", "registers per thread")},
          {"shared_memory_bytes", nullable("integer", "static plus dynamic shared memory per block, bytes")},
          {"achieved_occupancy_pct", nullable("number", "achieved occupancy, % of the maximum warps (ncu)")},
          {"dram_throughput_pct", nullable("number", "DRAM throughput, % of peak (ncu)")},
          {"sm_throughput_pct", nullable("number", "SM (compute) throughput, % of peak (ncu)")},
          {"hint",
           {{"type", "string"},
            {"description", "memory, compute, latency, or empty without throughput figures"}}},
          {"hint_reason", {{"type", "string"}, {"description", "the figures behind the hint"}}}}},
        {"required", Json::array({"name", "calls", "total_ns", "share", "hint"})}};
}

Json kernelTable(const KernelTable &table, int n)
{
    Json kernels = Json::array();
    for (size_t i = 0; i < table.kernels.size() && (n <= 0 || int(i) < n); ++i)
        kernels.push_back(kernelStat(table.kernels[i]));
    return Json{{"source", toStd(table.source)},
                {"path", toStd(table.path)},
                {"total_ns", table.totalNs},
                {"kernel_count", table.kernels.size()},
                {"kernels", kernels}};
}

QString kernelTableText(const KernelTable &table, int n)
{
    QString out = QStringLiteral("%1 kernels, %2 of kernel time (%3%4)\n")
                      .arg(table.kernels.size())
                      .arg(duration(table.totalNs), table.source,
                           table.path.isEmpty() ? QString() : QStringLiteral(": ") + table.path);
    out += QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9  %10\n")
               .arg(QStringLiteral("share"), 6)
               .arg(QStringLiteral("total"), 11)
               .arg(QStringLiteral("calls"), 6)
               .arg(QStringLiteral("avg"), 11)
               .arg(QStringLiteral("regs"), 5)
               .arg(QStringLiteral("occ%"), 6)
               .arg(QStringLiteral("dram%"), 6)
               .arg(QStringLiteral("sm%"), 6)
               .arg(QStringLiteral("hint"), -8)
               .arg(QStringLiteral("kernel"));
    for (size_t i = 0; i < table.kernels.size() && (n <= 0 || int(i) < n); ++i) {
        const KernelStat &k = table.kernels[i];
        out +=
            QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9  %10\n")
                .arg(QString::number(k.share * 100, 'f', 1) + QLatin1Char('%'), 6)
                .arg(duration(k.totalNs), 11)
                .arg(k.calls, 6)
                .arg(duration(k.avgNs), 11)
                .arg(k.registersPerThread ? QString::number(*k.registersPerThread) : QStringLiteral("-"), 5)
                .arg(pct(k.achievedOccupancyPct), 6)
                .arg(pct(k.dramThroughputPct), 6)
                .arg(pct(k.smThroughputPct), 6)
                .arg(k.boundHint.isEmpty() ? QStringLiteral("-") : k.boundHint, -8)
                .arg(shorten(k.name, 100));
    }
    return out;
}

Json instruction(const SassInstruction &in)
{
    Json j = Json::object();
    j["address"] = in.address ? Json(*in.address) : Json(nullptr);
    if (!in.label.isEmpty())
        j["label"] = toStd(in.label);
    j["text"] = toStd(in.text);
    j["opcode"] = toStd(in.opcode);
    if (in.stallSamples)
        j["stall_samples"] = *in.stallSamples;
    if (in.executed)
        j["executed"] = *in.executed;
    if (!in.stallReasons.empty()) {
        Json reasons = Json::object();
        for (const auto &[reason, n] : in.stallReasons)
            reasons[toStd(reason)] = n;
        j["stall_reasons"] = reasons;
    }
    return j;
}

Json instructionSchema()
{
    return Json{
        {"type", "object"},
        {"properties",
         {{"address", nullable("integer", "offset from the function's start (SASS); null for PTX")},
          {"label", {{"type", "string"}, {"description", "branch target label when this line is a label"}}},
          {"text",
           {{"type", "string"}, {"description", "the instruction as printed, without address and encoding"}}},
          {"opcode", {{"type", "string"}, {"description", "opcode with modifiers, predicate removed"}}},
          {"stall_samples",
           {{"type", "integer"},
            {"description", "warp-state samples at this instruction (ncu source page)"}}},
          {"executed",
           {{"type", "integer"}, {"description", "warp-level instructions executed (ncu source page)"}}},
          {"stall_reasons",
           {{"type", "object"}, {"description", "samples per stall reason (long_sb, lg, wait, ...)"}}}}}};
}

QString functionText(const SassFunction &function, int maxLines)
{
    bool profiled = false;
    for (const SassInstruction &in : function.instructions)
        profiled |= in.stallSamples.has_value();
    QString out;
    int lines = 0;
    for (const SassInstruction &in : function.instructions) {
        if (maxLines > 0 && lines >= maxLines) {
            out += QStringLiteral("... %1 more lines (raise max_lines)\n")
                       .arg(function.instructions.size() - size_t(lines));
            break;
        }
        ++lines;
        if (!in.label.isEmpty()) {
            out += in.label + QStringLiteral(":\n");
            continue;
        }
        QString prefix = in.address ? QStringLiteral("  %1  ").arg(*in.address, 6, 16, QLatin1Char('0'))
                                    : QStringLiteral("  ");
        if (profiled)
            prefix += QStringLiteral("%1 %2  ")
                          .arg(in.stallSamples ? QString::number(*in.stallSamples) : QString(), 7)
                          .arg(in.executed ? QString::number(*in.executed) : QString(), 10);
        out += prefix + in.text + QLatin1Char('\n');
    }
    return out;
}

} // namespace hotkernel::InspectFormat
