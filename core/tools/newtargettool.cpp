// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "measure/targetscaffold.h"
#include "process/processspec.h"
#include "session/job.h"
#include "session/session.h"
#include "session/toolregistry.h"

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
    return Json{{"type", "object"},
                {"properties", p},
                {"required", Json::array({"target", "from", "shape"})},
                {"additionalProperties", false}};
}

Json outputSchema()
{
    Json p = Json::object();
    p["target"] = Json{{"type", "string"}, {"description", "The target name."}};
    p["out_dir"] =
        Json{{"type", "string"}, {"description", "Folder written, relative to the working directory."}};
    p["files"] = Json{{"type", "array"},
                      {"items", Json{{"type", "string"}}},
                      {"description", "Files written, relative to the working directory."}};
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

QCoro::Task<ToolResult> runNewTarget(Session &session, Json arguments, Job &job)
{
    const TargetRequest request = TargetRequest::fromJson(arguments);
    TargetScaffold::prepare(request, session.workDir()); // bad input fails before any interpreter starts
    QPointer<Job> guard(&job);
    job.setProgress(0, 2, QStringLiteral("finding the Python with torch"));
    const PythonInfo python = co_await session.python().locate(guard);
    if (!guard || guard->isCancelled())
        co_return ToolResult::cancelledResult();
    job.setProgress(1, 2, QStringLiteral("checking that the baseline imports in %1").arg(python.path));
    const ScaffoldResult written =
        co_await TargetScaffold::write(request, session.workDir(), python.path, guard);
    if (!guard || guard->isCancelled())
        co_return ToolResult::cancelledResult();
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
                    {"out_dir", toStd(workDir.relative(written.outDir))},
                    {"files", toJson(files)},
                    {"python", Json{{"path", toStd(python.path)},
                                    {"source", toStd(python.source)},
                                    {"torch", toStd(python.torchVersion)}}},
                    {"next_steps", toJson(next)}};
    const QStringList roles = {QStringLiteral("the function to beat and the target definition"),
                               QStringLiteral("starts as the baseline: the file to edit"),
                               QStringLiteral("the measurement contract (protocol 3)")};
    QString text = QStringLiteral("new %1: wrote %2 files\n").arg(request.name).arg(files.size());
    for (qsizetype i = 0; i < files.size(); ++i)
        text += QStringLiteral("  %1  %2\n").arg(files.at(i).leftJustified(36), roles.value(i));
    text += QStringLiteral("interpreter: %1 (%2, torch %3)\nnext:\n")
                .arg(python.path, python.source, python.torchVersion);
    for (const QString &step : next)
        text += QStringLiteral("  %1\n").arg(step);
    co_return ToolResult::success(std::move(structured), text);
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
        "you edit) and _hotkernel_contract.py. Then bench the baseline and verify the untouched "
        "candidate.");
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
                               "changing it.");
    spec.inputSchema = inputSchema();
    spec.outputSchema = outputSchema();
    spec.annotations.readOnly = false;
    spec.annotations.destructive = true; // force overwrites
    spec.annotations.idempotent = false;
    // The original hotkernel's argument names (docs/mcp.md, "Calls written for the original").
    spec.argumentAliases = {{QStringLiteral("from_"), QStringLiteral("from"), ArgumentAlias::Kind::Rename},
                            {QStringLiteral("out"), QStringLiteral("out_dir"), ArgumentAlias::Kind::Rename}};
    spec.cliVerb = QStringLiteral("new");
    spec.cliPositionals = QStringList{QStringLiteral("target")};
    spec.handler = runNewTarget;
    registry.add(std::move(spec));
}

} // namespace hotkernel
