// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "base/boundedfile.h"
#include "base/job.h"
#include "base/usererror.h"
#include "inspect/host.h"
#include "measure/measuresetup.h"
#include "measure/runline.h"
#include "measure/targetscaffold.h"
#include "measure/tracetarget.h"
#include "process/processspec.h"
#include "remote/remotehost.h"
#include "session/session.h"
#include "session/toolregistry.h"
#include "tools/watchedhandler.h"

#include <QCoroFuture>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QtConcurrent>

namespace hotkernel {

namespace {

Json stringProperty(const char *description)
{
    return Json{{"type", "string"}, {"description", description}};
}

Json stringArrayProperty(const char *description)
{
    return Json{{"type", "array"}, {"items", Json{{"type", "string"}}}, {"description", description}};
}

Json inputSchema()
{
    Json p = Json::object();
    p["target"] =
        Json{{"type", "string"}, {"description", "Target name, a Python identifier (e.g. rmsnorm)."}};
    p["from"] = stringProperty("Baseline function: module:function or ./file.py:function.");
    p["shape"] =
        stringProperty("First input's shape: 4096x8192 (or 4096,8192); NAME=DIMS names it (default x).");
    p["extra"] = stringArrayProperty("More inputs in call order: NAME:DIMS[:DTYPE], e.g. w:8192.");
    p["rotate"] = stringArrayProperty("Inputs rotated through copies larger than L2 (default: the first).");
    p["flops"] =
        Json{{"type", "number"}, {"minimum", 0}, {"description", "FLOPs per call, for the roofline."}};
    p["reference"] = stringProperty("fp32 reference function (default: the baseline on fp32 copies).");
    p["derive"] = stringProperty("Function mapping raw random tensors to the call inputs (quantized "
                                 "weights); needs inputs and reference.");
    p["inputs"] = Json{{"type", Json::array({"array", "string"})},
                       {"items", Json{{"type", "string"}}},
                       {"description", "With derive: the call inputs, in order (list or a,b,c)."}};
    p["min_bytes"] = Json{{"type", "integer"},
                          {"minimum", 1},
                          {"description", "Bytes one call must read, when the inputs overstate it."}};
    p["dtype"] = Json{{"type", "string"},
                      {"enum", toJson(TargetScaffold::dtypes())},
                      {"default", "bf16"},
                      {"description", "Data type of the inputs and output; sets the tolerances."}};
    p["seed"] = Json{{"type", "integer"},
                     {"minimum", 0},
                     {"default", 0},
                     {"description", "Run I draws inputs from seed + I."}};
    p["atol"] =
        Json{{"type", "number"}, {"minimum", 0}, {"description", "Absolute tolerance (default by dtype)."}};
    p["rtol"] =
        Json{{"type", "number"}, {"minimum", 0}, {"description", "Relative tolerance (default by dtype)."}};
    p["iters"] =
        Json{{"type", "integer"}, {"minimum", 1}, {"default", 50}, {"description", "Calls per timed block."}};
    p["device"] = Json{{"type", "string"},
                       {"enum", Json::array({"cuda", "cpu"})},
                       {"description", "cuda or cpu; default: decided at run time."}};
    p["force"] = Json{{"type", "boolean"},
                      {"default", false},
                      {"description", "Overwrite existing scripts (edits are lost)."}};
    p["out_dir"] = Json{{"type", "string"},
                        {"default", "."},
                        {"description", "Folder for the scripts, inside the working directory."}};
    p["from_trace"] = stringProperty(
        "A torch_trace report: the target calls the aten op of row `op` (or of `kernel`) with the recorded "
        "shapes, dtypes and arguments; replaces from, shape and extra.");
    p["op"] = Json{{"type", "integer"}, {"minimum", 1}, {"description", "With from_trace: the op row."}};
    p["kernel"] = stringProperty("With from_trace, instead of op: a kernel name (a substring will do).");
    // target with from and shape, or from_trace with op or kernel: checked in the handler, which
    // says which of the two forms is incomplete.
    return Json{{"type", "object"}, {"properties", p}, {"additionalProperties", false}};
}

Json outputSchema()
{
    Json p = Json::object();
    p["target"] = Json{{"type", "string"}, {"description", "The target name."}};
    p["out_dir"] =
        Json{{"type", "string"}, {"description", "Folder written, relative to the working directory."}};
    p["files"] = Json{{"type", "array"},
                      {"items", Json{{"type", "string"}}},
                      {"description", "Files written, relative to the working directory (the candidate "
                                      "even when kept)."}};
    p["kept_candidate"] = Json{{"type", "boolean"},
                               {"description", "--force over an existing target kept its candidate as it "
                                               "was: only the baseline and the contract were rewritten."}};
    p["python"] = Json{{"type", "object"},
                       {"description", "The interpreter that checked the import, and where it was found."},
                       {"properties", Json{{"path", Json{{"type", "string"}}},
                                           {"source", Json{{"type", "string"}}},
                                           {"torch", Json{{"type", "string"}}}}}};
    p["next_steps"] = Json{
        {"type", "array"}, {"items", Json{{"type", "string"}}}, {"description", "The commands to run next."}};
    return Json{{"type", "object"},
                {"properties", p},
                {"required", Json::array({"target", "files", "python", "next_steps"})}};
}

struct TraceInput
{
    TraceTargetPlan plan;
    QString error;
};

// Reads the torch_trace report and its execution trace (which can be large: off the GUI thread).
TraceInput loadTrace(QString reportPath, QString displayPath, int row, QString kernel, QString name)
{
    TraceInput out;
    if (reportPath.isEmpty())
        return out;
    try {
        const auto readJson = [](const QString &path, const QString &what) {
            const QByteArray bytes =
                BoundedFile::readOrThrow(path, BoundedFile::kReportLimit, QStringLiteral("The ") + what,
                                         QStringLiteral("give a report torch_trace wrote."));
            QString error;
            std::optional<Json> json = parseJson(bytes, &error);
            if (!json)
                throw UserError(QStringLiteral("%1 is not JSON (%2).").arg(path, error));
            return *json;
        };
        const Json report = readJson(reportPath, QStringLiteral("torch_trace report"));
        const TraceOpRow picked = TraceTarget::pick(TraceTarget::rows(report), row, kernel);
        QString etPath = toQt(report.value("execution_trace", std::string()));
        if (etPath.isEmpty())
            throw UserError(
                QStringLiteral("%1 names no execution trace; trace the program again.").arg(displayPath));
        if (QFileInfo(etPath).isRelative())
            etPath = QFileInfo(reportPath).dir().filePath(etPath);
        // A report moved with its trace (or copied from another machine): the trace beside it.
        const QString beside = QFileInfo(reportPath).dir().filePath(QFileInfo(etPath).fileName());
        if (!QFileInfo::exists(etPath) && QFileInfo::exists(beside))
            etPath = beside;
        const Json trace = readJson(etPath, QStringLiteral("execution trace"));
        out.plan = TraceTarget::plan(picked, ExecutionTrace::call(trace, picked.node), name, displayPath);
    } catch (const UserError &e) {
        out.error = e.message();
    }
    return out;
}

QCoro::Task<ToolResult> runNewTarget(Session &session, Json arguments, const CancelAware *watching)
{
    const CancelAware &watch = *watching;
    Job &job = *watch.get(); // alive after each await through watch
    TargetRequest request = TargetRequest::fromJson(arguments);
    const QString fromTrace = stringField(arguments, "from_trace");
    QString reportPath;
    if (!fromTrace.isEmpty()) {
        if (!request.from.isEmpty() || !request.shape.isEmpty() || !request.extra.isEmpty())
            throw UserError(QStringLiteral("from_trace replaces from, shape and extra: give either the trace "
                                           "report or the function and its shapes."));
        reportPath = session.workDir().absolute(fromTrace);
        job.setProgress(0, 3, QStringLiteral("reading %1 and its execution trace").arg(fromTrace));
    } else if (request.name.isEmpty() || request.from.isEmpty() || request.shape.isEmpty()) {
        throw UserError(
            QStringLiteral("new needs a target name with --from and --shape, or --from-trace REPORT "
                           "with --op ROW (or --kernel NAME)."));
    }
    const QFuture<TraceInput> loading =
        QtConcurrent::run(loadTrace, reportPath, fromTrace, arguments.value("op", 0),
                          stringField(arguments, "kernel"), request.name);
    const TraceInput trace = co_await watch(loading);
    if (!trace.error.isEmpty())
        throw UserError(trace.error);
    QString moduleWritten;
    if (!fromTrace.isEmpty()) {
        const TraceTargetPlan &plan = trace.plan;
        if (!plan.unsupported.isEmpty())
            throw UserError(QStringLiteral("Op row %1 (%2) cannot be rebuilt as a target: %3.")
                                .arg(plan.row.row)
                                .arg(plan.row.op, plan.unsupported));
        request.name = plan.request.name;
        request.from = plan.request.from;
        request.shape = plan.request.shape;
        request.extra = plan.request.extra;
        if (!arguments.contains("dtype"))
            request.dtype = plan.request.dtype;
        TargetScaffold::prepare(request, session.workDir());
        const QString outDir = session.workDir().requireInside(request.outDir, QStringLiteral("out_dir"));
        QDir().mkpath(outDir);
        moduleWritten = QDir(outDir).filePath(plan.moduleFile);
        if (QFileInfo::exists(moduleWritten) && !request.force)
            throw UserError(QStringLiteral("%1 exists; set force to overwrite it.").arg(moduleWritten));
        QFile module(moduleWritten);
        if (!module.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            module.write(plan.moduleSource.toUtf8()) < 0)
            throw UserError(QStringLiteral("Cannot write %1: %2.").arg(moduleWritten, module.errorString()));
    }
    TargetScaffold::prepare(request, session.workDir()); // bad input fails before any interpreter starts
    job.setProgress(0, 2, QStringLiteral("finding the Python with torch"));
    // On a remote host (issue 24) the files are written here and checked there, with its interpreter.
    const QStringList noScripts;
    const bool hostReady = co_await watch(MeasureSetup::prepareHost(session, noScripts, watch.get()));
    watch.require(hostReady);
    const PythonInfo python = co_await watch(session.host().interpreter(watch.get()));
    job.setProgress(1, 2, QStringLiteral("checking that the baseline imports in %1").arg(python.path));
    ScaffoldResult written;
    QString failure;
    try {
        // A cancel ends the call through watch: JobCancelled is no UserError.
        written = co_await watch(
            TargetScaffold::write(request, session.workDir(), python.path, watch.get(), session.remote()));
    } catch (const UserError &e) {
        failure = e.message();
    }
    if (!failure.isEmpty() && !moduleWritten.isEmpty())
        QFile::remove(moduleWritten); // nothing left behind, as for the scaffold's own files
    if (!failure.isEmpty())
        throw UserError(failure);
    if (!moduleWritten.isEmpty())
        written.files.append(moduleWritten);
    job.setProgress(2, 2, QStringLiteral("written"));

    const WorkDir &workDir = session.workDir();
    QStringList files;
    for (const QString &file : written.files)
        files.append(workDir.relative(file));
    const QString baseline = workDir.relative(written.files.at(0));
    const QString candidate = workDir.relative(written.files.at(1));
    const QStringList next = {
        QStringLiteral("hotkernel bench %1").arg(shellQuote(baseline)),
        QStringLiteral("hotkernel verify %1 %2").arg(shellQuote(baseline), shellQuote(candidate)),
        QStringLiteral("edit %1 (only fn), then verify again").arg(candidate),
    };
    Json structured{{"target", toStd(request.name)},
                    {"from", toStd(request.from)},
                    {"shape", toStd(request.shape)},
                    {"extra", toJson(request.extra)},
                    {"out_dir", toStd(workDir.relative(written.outDir))},
                    {"files", toJson(files)},
                    {"kept_candidate", written.keptCandidate},
                    {"python", Json{{"path", toStd(python.path)},
                                    {"source", toStd(python.source)},
                                    {"torch", toStd(python.torchVersion)}}},
                    {"next_steps", toJson(next)}};
    const QStringList roles = {
        QStringLiteral("the function to beat and the target definition"),
        written.keptCandidate ? QStringLiteral("kept as it was (--force never overwrites a candidate)")
                              : QStringLiteral("starts as the baseline: the file to edit"),
        QStringLiteral("the measurement contract (protocol %1)").arg(RunLineParser::kProtocol),
        QStringLiteral("the traced aten op with its recorded arguments")};
    QString text = QStringLiteral("new %1: wrote %2 files\n").arg(request.name).arg(files.size());
    for (qsizetype i = 0; i < files.size(); ++i)
        text += QStringLiteral("  %1  %2\n").arg(files.at(i).leftJustified(36), roles.value(i));
    text += QStringLiteral("interpreter: %1 (%2, torch %3)\nnext:\n")
                .arg(python.path, python.source, python.torchVersion);
    for (const QString &step : next)
        text += QStringLiteral("  %1\n").arg(step);
    co_return ToolResult::success(std::move(structured), text);
}

// The scaffold's checks speak the CLI's language (--from, --shape); a tool call names its
// arguments (from, shape), so the message tells an agent or the window what to change.
bool fromCommandLine(const QString &client)
{
    return client == QLatin1String("cli") || client.startsWith(QLatin1String("hotkernel CLI"));
}

QString withArgumentNames(QString message)
{
    static const QRegularExpression flag(QStringLiteral("(^|[\\s('\"`])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)"));
    QString out;
    qsizetype last = 0;
    for (auto it = flag.globalMatch(message); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += message.mid(last, m.capturedStart(2) - 2 - last);
        out += m.captured(2).replace(QLatin1Char('-'), QLatin1Char('_'));
        last = m.capturedEnd(2);
    }
    return out + message.mid(last);
}

QCoro::Task<ToolResult> newTargetHandler(Session &session, Json arguments, Job &job)
{
    const bool cli = fromCommandLine(job.client());
    QString message;
    try {
        QCoro::Task<ToolResult> running = watched(runNewTarget, session, std::move(arguments), job);
        co_return co_await std::move(running); // cancel: checked by watched()
    } catch (const UserError &e) {
        if (cli)
            throw;
        message = withArgumentNames(e.message());
    }
    throw UserError(message);
}

} // namespace

void registerNewTargetTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("new_target");
    spec.title = QStringLiteral("Make a target from a PyTorch function");
    spec.description = QStringLiteral(
        "Makes a target from a PyTorch function: NAME_baseline.py (the function plus the "
        "contract: shapes, dtype, seed, fp32 reference, tolerances), NAME_candidate.py (the file "
        "you edit) and _hotkernel_contract.py; or from a torch_trace op (from_trace). Then bench "
        "the baseline and verify the untouched candidate.");
    spec.help = QStringLiteral("Make a new optimisation target from a PyTorch function: writes "
                               "NAME_baseline.py (the function to beat and the "
                               "target definition: input shapes, dtype, seed, fp32 reference, "
                               "tolerances, rotated inputs, iters, flops, bytes), "
                               "NAME_candidate.py (only fn, starting as a copy of the baseline: the "
                               "file you edit) and the vendored measurement "
                               "contract _hotkernel_contract.py into out_dir. Before anything is "
                               "written the baseline is imported once in the "
                               "torch interpreter (HOTKERNEL_PYTHON, else the first python on PATH "
                               "with torch), so a --from that does not import "
                               "fails with the Python error and leaves nothing behind. Existing files "
                               "are refused unless force is set (force "
                               "overwrites them). Returns the files written, the interpreter used and "
                               "the next steps: bench the baseline, then "
                               "verify the untouched candidate against it (it must come out "
                               "inconclusive, never incorrect or invalid) before "
                               "changing it. from_trace with op (or kernel) makes the target from a "
                               "torch_trace report: the baseline calls that aten op with the recorded "
                               "shapes, dtypes and arguments.");
    spec.inputSchema = inputSchema();
    spec.outputSchema = outputSchema();
    spec.annotations.readOnly = false;
    spec.annotations.destructive = true; // force overwrites
    spec.annotations.idempotent = false;
    // The original hotkernel's argument names (docs/mcp.md, "Calls written for the original").
    spec.argumentAliases = {{QStringLiteral("from_"), QStringLiteral("from"), ArgumentAlias::Kind::Rename},
                            {QStringLiteral("out"), QStringLiteral("out_dir"), ArgumentAlias::Kind::Rename}};
    spec.cliVerb = QStringLiteral("new");
    spec.resultKind = ToolSpec::ResultKind::NewTarget;
    spec.writesWorkspace = true;
    spec.cliPositionals = QStringList{QStringLiteral("target")};
    spec.handler = newTargetHandler;
    registry.add(std::move(spec));
}

} // namespace hotkernel
