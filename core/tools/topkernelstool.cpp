// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "base/boundedfile.h"
#include "base/job.h"
#include "base/usererror.h"
#include "inspect/inspectformat.h"
#include "inspect/kernelreportparser.h"
#include "inspect/leadingkernel.h"
#include "inspect/ncukerneldetails.h"
#include "session/session.h"
#include "session/toolregistry.h"
#include "tools/watchedhandler.h"

#include <QCoroFuture>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent>

namespace hotkernel {

namespace {

struct Parsed
{
    KernelTable table;
    std::vector<NcuLaunchDetail> details; // ncu details pages: rules and the further metrics
    QString error;
};

// Reading and parsing a report of tens of MB runs on a worker thread.
Parsed readAndParse(const QString &path)
{
    Parsed out;
    const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kReportLimit);
    if (!file.ok()) {
        out.error = path + QLatin1Char(' ') + file.error +
                    QStringLiteral(": give a report that profile, ncu or nsys wrote.");
        return out;
    }
    const QByteArray &data = file.bytes;
    try {
        out.table = KernelReportParser::parse(data, path);
        if (KernelReportParser::detect(data) == KernelReportParser::Format::NcuDetails &&
            out.table.source == QLatin1String("ncu-details"))
            out.details = NcuKernelDetails::parse(data);
    } catch (const UserError &e) {
        out.error = e.message();
    }
    return out;
}

QCoro::Task<ToolResult> topKernelsWatched(Session &session, Json arguments, const CancelAware *watching)
{
    const CancelAware &watch = *watching;
    const QString path = session.workDir().absolute(stringField(arguments, "path"));
    const int n = arguments.value("n", 10);
    if (!QFileInfo(path).isFile())
        throw UserError(
            QStringLiteral("%1 does not exist. Give a saved report: an ncu details or raw CSV, an nsys "
                           "kernel summary CSV, or a hotkernel trace (.trace.jsonl) from profile.")
                .arg(path));
    watch->setProgress(0, std::nullopt, QStringLiteral("parsing %1").arg(QFileInfo(path).fileName()));
    const QFuture<Parsed> parsing = QtConcurrent::run(readAndParse, path); // a named future
    const Parsed parsed = co_await watch(parsing);
    if (!parsed.error.isEmpty())
        throw UserError(parsed.error);
    if (parsed.table.kernels.empty())
        throw UserError(
            QStringLiteral("%1 is a %2 report but lists no kernels.").arg(path, parsed.table.source));
    Json out = InspectFormat::kernelTable(parsed.table, n);
    QString text = InspectFormat::kernelTableText(parsed.table, n);
    if (!parsed.details.empty() && out.contains("kernels")) {
        const bool perLaunch = arguments.value("per_launch", false);
        text += QStringLiteral("\nncu's rules and further metrics per kernel:\n");
        for (Json &row : out["kernels"]) {
            const QString name = toQt(row.value("name", std::string()));
            std::vector<const NcuLaunchDetail *> launches;
            for (const NcuLaunchDetail &l : parsed.details) {
                if (l.name == name)
                    launches.push_back(&l);
            }
            if (launches.empty())
                continue;
            row["ncu"] = NcuKernelDetails::kernelJson(launches, perLaunch);
            const Json &ncu = row["ncu"];
            const Json &m = ncu["metrics"];
            const auto figure = [&m](const char *key, int decimals) {
                return m.contains(key) ? QString::number(m[key].get<double>(), 'f', decimals)
                                       : QStringLiteral("?");
            };
            text +=
                QStringLiteral("%1\n  occupancy %2% theoretical, %3% achieved; waves/SM %4; L1 %5%, L2 %6%, "
                               "DRAM %7%; SM %8 MHz, DRAM %9 MHz; %10 cycles\n")
                    .arg(InspectFormat::shorten(name, 100), figure("theoretical_occupancy_pct", 0),
                         figure("achieved_occupancy_pct", 1), figure("waves_per_sm", 2),
                         figure("l1_throughput_pct", 1), figure("l2_throughput_pct", 1),
                         figure("dram_throughput_pct", 1), figure("sm_clock_mhz", 0),
                         figure("dram_clock_mhz", 0))
                    .arg(figure("elapsed_cycles", 0));
            for (const Json &rule : ncu["rules"]) {
                if (!rule.contains("estimated_speedup_pct"))
                    continue;
                text +=
                    QStringLiteral("  %1 %2: est. %3 speedup %4% (%5)\n")
                        .arg(toQt(rule.value("type", std::string())), toQt(rule.value("rule", std::string())),
                             toQt(rule.value("speedup_type", std::string())))
                        .arg(rule["estimated_speedup_pct"].get<double>(), 0, 'f', 1)
                        .arg(InspectFormat::shorten(toQt(rule.value("description", std::string())), 140));
            }
            if (perLaunch) {
                for (const Json &l : ncu["launches"])
                    text += QStringLiteral("  launch %1 grid %2 block %3: %4 ns\n")
                                .arg(toQt(l.value("id", std::string())), toQt(l.value("grid", std::string())),
                                     toQt(l.value("block", std::string())))
                                .arg(l["metrics"].value("duration_ns", 0.0), 0, 'f', 0);
            }
        }
    }
    co_return ToolResult::success(out, text);
}

} // namespace

void registerTopKernelsTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("top_kernels");
    spec.title = QStringLiteral("Heaviest kernels of a saved report");
    spec.description = QStringLiteral(
        "The n heaviest kernels of a saved report (ncu CSV, nsys kernel-summary CSV or "
        ".trace.jsonl): share, calls, times, launch shape, registers and, from ncu, occupancy and "
        "DRAM/SM throughput with a bound hint; ncu's rule results with estimated speedups.");
    spec.help = QStringLiteral(
        "The n heaviest kernels of a saved profile: an ncu details CSV (`ncu --import R.ncu-rep --csv --page "
        "details`, "
        "units as printed), an ncu raw CSV (`--page raw`), an nsys kernel summary CSV (`nsys stats --report "
        "cuda_gpu_kern_sum --format csv`) or a hotkernel trace (.trace.jsonl from `profile --tool trace`); "
        "the format is "
        "recognised from the content. Per kernel: share of kernel time, calls, total/avg/min/max, grid and "
        "block, "
        "registers, shared memory and, from ncu, achieved occupancy, DRAM and SM throughput with a hint: "
        "memory (DRAM >= "
        "60% of peak), compute (SM >= 60%) or latency (both lower). From an ncu details page each kernel "
        "also gets "
        "ncu: its rule results with estimated speedups, theoretical and achieved occupancy, L1/L2/DRAM "
        "throughput, "
        "waves per SM, SM and DRAM clocks, elapsed cycles (one row per kernel; per_launch adds each launch). "
        "Reads the file only. Fails with a "
        "message naming the "
        "accepted formats when the file is none of them.");
    spec.inputSchema = Json{{"type", "object"},
                            {"properties",
                             {{"path",
                               {{"type", "string"},
                                {"minLength", 1},
                                {"description", "The saved report (CSV or .trace.jsonl)."}}},
                              {"n",
                               {{"type", "integer"},
                                {"minimum", 1},
                                {"default", 10},
                                {"description", "Kernels to return, heaviest first."}}},
                              {"per_launch",
                               {{"type", "boolean"},
                                {"default", false},
                                {"description", "ncu details: each launch's own figures too."}}}}},
                            {"required", Json::array({"path"})},
                            {"additionalProperties", false}};
    spec.outputSchema =
        Json{{"type", "object"},
             {"properties",
              {{"source",
                {{"type", "string"},
                 {"enum", Json::array({"ncu-details", "ncu-raw", "nsys-kernsum", "trace"})},
                 {"description", "the report format recognised"}}},
               {"path", {{"type", "string"}, {"description", "the file parsed"}}},
               {"total_ns",
                {{"type", "number"}, {"description", "kernel time over every kernel in the report, ns"}}},
               {"kernel_count", {{"type", "integer"}, {"description", "distinct kernels in the report"}}},
               {"kernels",
                {{"type", "array"},
                 {"items", InspectFormat::kernelStatSchema()},
                 {"description", "the n heaviest kernels"}}}}},
             {"required", Json::array({"source", "path", "total_ns", "kernels"})}};
    spec.annotations.readOnly = true;
    spec.annotations.idempotent = true;
    // The original hotkernel's argument names (docs/mcp.md, "Calls written for the original").
    spec.argumentAliases = {
        {QStringLiteral("summary_csv"), QStringLiteral("path"), ArgumentAlias::Kind::Rename},
        {QStringLiteral("tool"), QString(), ArgumentAlias::Kind::Ignore}};
    spec.cliVerb = QStringLiteral("top-kernels");
    spec.writesWorkspace = true;
    spec.cliPositionals = {QStringLiteral("path")};
    spec.readsResult<LeadingKernel>();
    spec.handler = [](Session &session, Json arguments, Job &job) {
        return watched(topKernelsWatched, session, std::move(arguments), job);
    };
    registry.add(std::move(spec));
}

} // namespace hotkernel
