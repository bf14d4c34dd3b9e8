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
        Json{{"type", "string"},
             {"description",
              "Target name, a Python identifier (e.g. rmsnorm): the scripts are NAME_baseline.py and "
              "NAME_candidate.py."}};
    p["from"] = stringProperty(
        "The baseline function: module:function (e.g. torch.nn.functional:gelu) or ./file.py:function "
        "(a path relative to out_dir, or absolute). It is called with the inputs in call order.");
    p["shape"] = stringProperty(
        "Shape of the primary (first) input, dimensions joined by x: 4096x8192, or 8192 for a vector. "
        "NAME=4096x8192 names it (default x).");
    p["extra"] = stringArrayProperty(
        "Further inputs after the primary one, in call order, each NAME:DIMS or NAME:DIMS:DTYPE "
        "(e.g. w:8192). Drawn with randn like the primary input.");
    p["rotate"] = stringArrayProperty(
        "Call inputs that rotate through K copies sized from the L2 cache, so the cache cannot "
        "pose as DRAM. Default: the primary input (every derived input with derive).");
    p["flops"] =
        Json{{"type", "number"},
             {"minimum", 0},
             {"description",
              "Nominal floating-point operations per call, for the roofline (leave out when unknown)."}};
    p["reference"] = stringProperty(
        "An fp32 reference function (module:function or ./file.py:function). Default: the baseline "
        "itself on fp32 copies of the inputs. Required with derive.");
    p["derive"] = stringProperty(
        "A function (module:function or ./file.py:function) mapping the dict of raw random tensors "
        "to the dict of call inputs, for inputs randn cannot draw (quantized weights). Needs inputs "
        "and reference.");
    p["inputs"] =
        stringArrayProperty("With derive: the names of the call inputs derive returns, in call order.");
    p["min_bytes"] =
        Json{{"type", "integer"},
             {"minimum", 1},
             {"description", "Bytes one call must move at least (without the output), when the inputs' sizes "
                             "overstate it; also sizes rotation. Default: the bytes of the call's inputs."}};
    p["dtype"] = Json{{"type", "string"},
                      {"enum", toJson(TargetScaffold::dtypes())},
                      {"default", "bf16"},
                      {"description",
                       "Data type of the floating inputs and of the output; sets the default tolerances "
                       "(fp32 1e-4, tf32 1e-3, bf16/fp16 1e-2)."}};
    p["seed"] = Json{{"type", "integer"},
                     {"minimum", 0},
                     {"default", 0},
                     {"description", "Base seed: run I draws its inputs from seed + I."}};
    p["atol"] =
        Json{{"type", "number"}, {"minimum", 0}, {"description", "Absolute tolerance (default: by dtype)."}};
    p["rtol"] =
        Json{{"type", "number"}, {"minimum", 0}, {"description", "Relative tolerance (default: by dtype)."}};
    p["iters"] = Json{{"type", "integer"},
                      {"minimum", 1},
                      {"default", 50},
                      {"description", "Calls per timed block (captured in one CUDA graph on the GPU)."}};
    p["device"] = Json{{"type", "string"},
                       {"enum", Json::array({"cuda", "cpu"})},
                       {"description",
                        "Where the scripts run. Leave out to decide at run time: cuda when torch sees a GPU, "
                        "else cpu. A script's --device flag overrides it."}};
    p["force"] = Json{{"type", "boolean"},
                      {"default", false},
                      {"description",
                       "Overwrite existing NAME_baseline.py / NAME_candidate.py (edits are lost) and another "
                       "version of the vendored contract."}};
    p["out_dir"] =
        Json{{"type", "string"},
             {"default", "."},
             {"description", "Folder for the scripts, inside the working directory; created when missing."}};
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
    spec.title = QStringLiteral("Scaffold a target (baseline + candidate scripts)");
    spec.description = QStringLiteral("Make a new optimisation target from a PyTorch function: writes "
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
    spec.cliVerb = QStringLiteral("new");
    spec.resultKind = ToolSpec::ResultKind::NewTarget;
    spec.writesWorkspace = true;
    spec.cliPositionals = QStringList{QStringLiteral("target")};
    spec.handler = runNewTarget;
    registry.add(std::move(spec));
}

} // namespace hotkernel
