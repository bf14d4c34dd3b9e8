// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "base/confinedwrite.h"
#include "base/job.h"
#include "base/usererror.h"
#include "inspect/inspectformat.h"
#include "inspect/leadingkernel.h"
#include "inspect/torchtracerunner.h"
#include "measure/measuresetup.h"
#include "remote/remotehost.h"
#include "remote/remotetorchtrace.h"
#include "session/session.h"
#include "session/toolregistry.h"
#include "tools/watchedhandler.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace hotkernel {

namespace {

QString text(const Json &document)
{
    QString out = QStringLiteral("%1 on %2 (torch %3), %4 s\n")
                      .arg(toQt(document.value("script", std::string())),
                           toQt(document.value("device_name", std::string())),
                           toQt(document.value("torch", std::string())))
                      .arg(document.value("wall_s", 0.0), 0, 'f', 2);
    if (document.contains("note"))
        out += QStringLiteral("note: %1\n").arg(toQt(document["note"].get<std::string>()));
    const Json kernels = document.value("kernels", Json::array());
    if (!kernels.empty()) {
        out += QStringLiteral("\nGPU kernels (%1 distinct, %2 of device time):\n")
                   .arg(document.value("kernel_count", 0))
                   .arg(InspectFormat::duration(document.value("kernel_total_us", 0.0) * 1e3));
        out += QStringLiteral("%1 %2 %3 %4  %5\n")
                   .arg(QStringLiteral("share"), 6)
                   .arg(QStringLiteral("total"), 11)
                   .arg(QStringLiteral("calls"), 6)
                   .arg(QStringLiteral("avg"), 11)
                   .arg(QStringLiteral("kernel"));
        for (const Json &k : kernels)
            out += QStringLiteral("%1 %2 %3 %4  %5\n")
                       .arg(QString::number(k.value("share", 0.0) * 100, 'f', 1) + QLatin1Char('%'), 6)
                       .arg(InspectFormat::duration(k.value("total_us", 0.0) * 1e3), 11)
                       .arg(k.value("calls", 0), 6)
                       .arg(InspectFormat::duration(k.value("avg_us", 0.0) * 1e3), 11)
                       .arg(InspectFormat::shorten(toQt(k.value("name", std::string())), 100));
    }
    const Json ops = document.value("ops", Json::array());
    out += QStringLiteral("\naten ops by %1 (%2 distinct name+shape):\n")
               .arg(kernels.empty() ? QStringLiteral("CPU time") : QStringLiteral("device time"))
               .arg(document.value("op_count", 0));
    out += QStringLiteral("%1 %2 %3 %4  %5\n")
               .arg(QStringLiteral("device"), 11)
               .arg(QStringLiteral("cpu total"), 11)
               .arg(QStringLiteral("self cpu"), 11)
               .arg(QStringLiteral("calls"), 6)
               .arg(QStringLiteral("op and input shapes"));
    for (const Json &op : ops)
        out += QStringLiteral("%1 %2 %3 %4  %5 %6\n")
                   .arg(InspectFormat::duration(op.value("device_total_us", 0.0) * 1e3), 11)
                   .arg(InspectFormat::duration(op.value("cpu_total_us", 0.0) * 1e3), 11)
                   .arg(InspectFormat::duration(op.value("self_cpu_us", 0.0) * 1e3), 11)
                   .arg(op.value("calls", 0), 6)
                   .arg(toQt(op.value("name", std::string())),
                        toQt(op.value("input_shapes", Json::array()).dump()));
    const Json rows = document.value("op_rows", Json::array());
    if (!rows.empty()) {
        out += QStringLiteral("\nop rows: each kernel joined to the aten op that launched it, with that op's "
                              "recorded arguments (new --from-trace %1 --op ROW makes a target):\n")
                   .arg(toQt(document.value("report", std::string("REPORT"))));
        int shown = 0;
        for (const Json &r : rows) {
            if (++shown > 20)
                break;
            const Json kernels = r.value("kernels", Json::array());
            out += QStringLiteral("%1 %2 %3 %4  %5 %6\n      -> %7\n")
                       .arg(r.value("row", 0), 3)
                       .arg(QString::number(r.value("share", 0.0) * 100, 'f', 1) + QLatin1Char('%'), 6)
                       .arg(InspectFormat::duration(r.value("device_total_us", 0.0) * 1e3), 11)
                       .arg(r.value("calls", 0), 4)
                       .arg(toQt(r.value("name", std::string())),
                            toQt(r.value("input_shapes", Json::array()).dump()),
                            kernels.empty()
                                ? QString()
                                : InspectFormat::shorten(toQt(kernels[0].value("name", std::string())), 100));
        }
    }
    if (document.contains("op_rows_error"))
        out +=
            QStringLiteral("note: no op rows: %1\n").arg(toQt(document["op_rows_error"].get<std::string>()));
    if (document.contains("execution_trace_error"))
        out += QStringLiteral("note: %1\n").arg(toQt(document["execution_trace_error"].get<std::string>()));
    return out;
}

// Here, or on the session's host (its traces come back here).
QCoro::Task<Json> traceWhere(Session &session, const TorchTraceRequest &request, Job *job)
{
    if (RemoteHost *remote = session.remote())
        return RemoteTorchTrace::run(request, remote, job);
    return TorchTraceRunner::run(request, job);
}

QCoro::Task<ToolResult> torchTraceWatched(Session &session, Json arguments, const CancelAware *watching)
{
    const CancelAware &watch = *watching;
    const QString script = session.workDir().absolute(stringField(arguments, "script"));
    if (!QFileInfo(script).isFile())
        throw UserError(
            QStringLiteral("%1 does not exist. Give the Python script to profile (e.g. rmsnorm_baseline.py).")
                .arg(script));
    // On a remote host: connect and copy the script and what it imports first.
    const QStringList scripts{script};
    const bool hostReady = co_await watch(MeasureSetup::prepareHost(session, scripts, watch.get()));
    watch.require(hostReady);
    const PythonInfo python = co_await watch(MeasureSetup::startingInterpreter(session, watch.get()));

    TorchTraceRequest request;
    request.python = python.path;
    request.script = script;
    request.arguments = toStringList(arguments.value("args", Json::array()));
    request.workingDirectory = session.workDir().root();
    request.top = arguments.value("top", 15);
    request.timeoutSeconds = arguments.value("timeout_s", 600);
    // The runner creates profiles/ and writes there without leaving the working directory.
    const QString stem =
        session.workDir().root() +
        QStringLiteral("/profiles/%1-%2")
            .arg(QFileInfo(script).completeBaseName(),
                 QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    if (arguments.value("save_trace", false))
        request.chromeTrace = stem + QStringLiteral(".chrome-trace.json");
    if (arguments.value("execution_trace", true))
        request.executionTrace = stem + QStringLiteral(".et.json");
    Json document = co_await watch(traceWhere(session, request, watch.get()));
    document["interpreter"] = toStd(python.path);
    // The report new --from-trace reads: this document, beside the execution trace it names.
    const QString report = stem + QStringLiteral(".torch-trace.json");
    try {
        ConfinedWrite::writeFile(session.workDir().root(), session.workDir().relative(report),
                                 QByteArray::fromStdString(document.dump(1)));
        document["report"] = toStd(session.workDir().relative(report));
    } catch (const UserError &e) {
        document["report_error"] = toStd(QStringLiteral("cannot write %1: %2").arg(report, e.message()));
    }
    co_return ToolResult::success(document, text(document));
}

} // namespace

void registerTorchTraceTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("torch_trace");
    spec.title = QStringLiteral("Profile a script with torch.profiler");
    spec.description = QStringLiteral(
        "Runs a Python script under torch.profiler: the top GPU kernels by device time with their "
        "share, and the aten ops by input shapes. Needs no Nsight: the quickest way to find the "
        "dominant kernel. Its op_rows feed new_target's from_trace.");
    spec.help = QStringLiteral("Runs a Python script under torch.profiler in the user's interpreter "
                               "(HOTKERNEL_PYTHON, else the first python "
                               "on PATH with torch) and returns the top GPU kernels by device time "
                               "with their share of the total, and the "
                               "aten ops grouped by input shapes (calls, CPU and device time). Needs "
                               "no Nsight: the quickest way to find the "
                               "dominant kernel. On a machine without CUDA it returns CPU ops and a "
                               "note that there are no GPU kernels. "
                               "save_trace keeps the profiler's chrome trace under profiles/. The "
                               "execution trace (on by default) adds op_rows: each kernel joined to the "
                               "aten op that launched it, with every argument, and the saved report "
                               "feeds new --from-trace. In a session on a remote host the "
                               "script (copied there with what it imports) runs in the host's "
                               "interpreter and the traces come back here. Fails "
                               "with the script's traceback when the "
                               "script fails.");
    spec.inputSchema =
        Json{{"type", "object"},
             {"properties",
              {{"script", {{"type", "string"}, {"minLength", 1}, {"description", "Python script to run."}}},
               {"args",
                {{"type", "array"},
                 {"items", {{"type", "string"}}},
                 {"default", Json::array()},
                 {"description", "Arguments for the script."}}},
               {"top",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"default", 15},
                 {"description", "Kernels and ops to return."}}},
               {"save_trace",
                {{"type", "boolean"},
                 {"default", false},
                 {"description", "Also save the chrome trace under profiles/."}}},
               {"execution_trace",
                {{"type", "boolean"},
                 {"default", true},
                 {"description", "Record op arguments and join kernels to their ops (op_rows)."}}},
               {"timeout_s",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"default", 600},
                 {"description", "Seconds before the script is stopped."}}}}},
             {"required", Json::array({"script"})},
             {"additionalProperties", false}};
    spec.outputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"script", {{"type", "string"}, {"description", "the script profiled (as its host has it)"}}},
          {"host", {{"type", "string"}, {"description", "the session's remote host it ran on; absent here"}}},
          {"torch", {{"type", "string"}, {"description", "torch version"}}},
          {"device",
           {{"type", "string"},
            {"enum", Json::array({"cuda", "cpu"})},
            {"description", "cuda when torch saw a GPU"}}},
          {"device_name", {{"type", "string"}, {"description", "GPU name or cpu"}}},
          {"wall_s", {{"type", "number"}, {"description", "seconds the script ran under the profiler"}}},
          {"kernel_total_us", {{"type", "number"}, {"description", "device time of all kernels, us"}}},
          {"kernel_count", {{"type", "integer"}, {"description", "distinct kernels"}}},
          {"kernels",
           {{"type", "array"},
            {"description",
             "heaviest kernels: name, calls, total_us, avg_us, min_us, max_us, share (0..1)"}}},
          {"op_count", {{"type", "integer"}, {"description", "distinct (op, input shapes) pairs"}}},
          {"ops",
           {{"type", "array"},
            {"description",
             "aten ops: name, input_shapes, calls, cpu_total_us, self_cpu_us, device_total_us"}}},
          {"note",
           {{"type", "string"}, {"description", "why there are no GPU kernels, when there are none"}}},
          {"chrome_trace", {{"type", "string"}, {"description", "the saved chrome trace, with save_trace"}}},
          {"interpreter", {{"type", "string"}, {"description", "the Python interpreter used"}}},
          {"report",
           {{"type", "string"}, {"description", "this document saved under profiles/ (new --from-trace)"}}},
          {"execution_trace", {{"type", "string"}, {"description", "the execution trace recorded"}}},
          {"op_rows",
           {{"type", "array"},
            {"description",
             "row, name, calls, device_total_us, share, kernels, input_shapes, input_types, "
             "schema, et_node: kernels joined to the top-level aten op that launched them"}}}}},
        {"required", Json::array({"device", "kernels", "ops"})}};
    // The original hotkernel's argument names (docs/mcp.md, "Calls written for the original").
    spec.argumentAliases = {
        {QStringLiteral("timeout"), QStringLiteral("timeout_s"), ArgumentAlias::Kind::Rename},
        {QStringLiteral("cwd"), QString(), ArgumentAlias::Kind::WorkDirOnly}};
    spec.cliVerb = QStringLiteral("torch-trace");
    spec.cliPositionals = {QStringLiteral("script"), QStringLiteral("args")};
    spec.timesGpu = true;
    spec.writesWorkspace = true;
    spec.readsResult<LeadingKernel>();
    spec.runsUserProgram = true;
    spec.handler = [](Session &session, Json arguments, Job &job) {
        return watched(torchTraceWatched, session, std::move(arguments), job);
    };
    registry.add(std::move(spec));
}

} // namespace hotkernel
