// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "measure/benchrun.h"
#include "measure/uncontractedrun.h"
#include "session/session.h"
#include "session/toolregistry.h"
#include "tools/measureschema.h"

namespace hotkernel {

namespace {

Json nullableNumber(const char *description)
{
    return Json{{"type", Json::array({"number", "null"})}, {"description", description}};
}

Json statsSchema()
{
    return Json{{"type", "object"},
                {"description",
                 "Summary of the measured runs (warm-up runs excluded); times are per-call milliseconds."},
                {"properties",
                 {{"n", {{"type", "integer"}, {"description", "measured runs"}}},
                  {"mean_ms", {{"type", "number"}, {"description", "mean of the runs' ms"}}},
                  {"std_ms", {{"type", "number"}, {"description", "sample standard deviation (n - 1)"}}},
                  {"min_ms", {{"type", "number"}, {"description", "fastest run"}}},
                  {"samples_ms",
                   {{"type", "array"},
                    {"items", {{"type", "number"}}},
                    {"description", "every run's ms, in run order"}}}}},
                {"required", Json::array({"n", "mean_ms", "std_ms", "min_ms", "samples_ms"})}};
}

} // namespace

namespace {
// Not a coroutine: it only picks the run (contracted or not), whose coroutine does the work.
QCoro::Task<ToolResult> benchHandler(Session &session, Json arguments, Job &job)
{
    if (UncontractedRun::prepare(session, arguments, {"script"}))
        return UncontractedRun::bench(session, std::move(arguments), job);
    return BenchRun::run(session, std::move(arguments), job);
}
} // namespace

void registerBenchTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("bench");
    spec.title = QStringLiteral("Time a script");
    spec.description =
        QStringLiteral("Times a script warmup + n times: mean, std, min and every sample in ms. A new_target "
                       "script checks its output against the fp32 reference every run; any other script runs "
                       "uncontracted and must print a JSON line with ms and ok.");
    spec.help = QStringLiteral(
        "Runs one target script (made by new_target) warmup + n times and "
        "reports the per-call time: mean, standard "
        "deviation, minimum and every raw sample in milliseconds, plus the "
        "roofline inputs (flops, bytes) and the "
        "throughput they imply. Each run refills the rotated inputs from seed "
        "+ run index and checks the output "
        "against the fp32 reference before timing. By default one warm worker "
        "process serves every run (torch and "
        "CUDA start once; the worker is kept for later calls while the script, "
        "its imports, the contract and the "
        "interpreter are unchanged); fresh = true starts a process per run. "
        "Holds the GPU for the whole call: one "
        "timing job per GPU at a time, across hotkernel processes. Fails with "
        "a message naming the run when the "
        "script crashes, exits non-zero, prints no JSON result line or a "
        "malformed one, hangs past timeout (its "
        "whole process group is killed), or its output check fails (ok false). "
        "Use verify, not two benches, to "
        "compare a candidate with its baseline."
        " A script that does not import the vendored contract runs uncontracted (docs/mcp.md): `python "
        "SCRIPT ARGS...` in cwd, a process per run, its printed ms and ok taken as they are; its results are "
        "labelled uncontracted and record refuses them.");
    spec.inputSchema =
        Json{{"type", "object"},
             {"properties",
              {{"script", {{"type", "string"}, {"description", "The script, e.g. NAME_baseline.py."}}},
               {"n",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"maximum", 1000},
                 {"default", 7},
                 {"description", "Measured runs."}}},
               {"warmup", MeasureSchema::warmup("Runs made first and dropped.")},
               {"timeout", MeasureSchema::timeout()},
               {"fresh", MeasureSchema::fresh("A new process per run instead of a warm worker (slow).")}}},
             {"required", Json::array({"script"})},
             {"additionalProperties", false}};
    UncontractedRun::addSchemaProperties(spec.inputSchema);
    spec.outputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"tool", {{"const", "bench"}, {"description", "always bench"}}},
          {"hotkernel_version", {{"type", "string"}, {"description", "version of hotkernel that measured"}}},
          {"script", {{"type", "string"}, {"description", "the script as given"}}},
          {"script_path", {{"type", "string"}, {"description", "absolute path of the script"}}},
          {"script_sha256",
           {{"type", "string"}, {"description", "sha256 of the script's bytes at bench time"}}},
          {"target",
           {{"type", Json::array({"string", "null"})}, {"description", "target name from the result lines"}}},
          {"n", {{"type", "integer"}, {"description", "measured runs"}}},
          {"warmup", {{"type", "integer"}, {"description", "dropped warm-up runs"}}},
          {"mode",
           {{"enum", Json::array({"warm", "fresh"})},
            {"description", "warm: one worker process; fresh: a process per run"}}},
          {"worker_reused",
           {{"type", "boolean"}, {"description", "the warm worker was kept from an earlier call"}}},
          {"worker_from_spare", {{"type", "boolean"}, {"description", "a new worker in a spare"}}},
          {"stats", statsSchema()},
          {"runs",
           {{"type", "array"},
            {"description",
             "every measured run: run index, ms (the GPU's witnessed time where the tracer witnessed the "
             "timed replays, protocol 5), reported_ms (what the script printed), timer, the run's per-replay "
             "samples_ms, max_err, wall_s"},
            {"items", {{"type", "object"}}}}},
          {"roofline_inputs",
           {{"type", "object"},
            {"description", "flops and bytes of one call (null when unknown)"},
            {"properties",
             {{"flops", nullableNumber("nominal flops per call")},
              {"bytes", nullableNumber("bytes one call must move")}}}}},
          {"achieved",
           {{"type", "object"},
            {"description", "throughput at the mean time"},
            {"properties",
             {{"tflops", nullableNumber("TFLOP/s")},
              {"gbps", nullableNumber("GB/s (1e9 bytes per second)")}}}}},
          {"valid", {{"type", "boolean"}, {"description", "false: below the floor"}}},
          {"invalid_reason", {{"type", Json::array({"string", "null"})}, {"description", "why not valid"}}},
          {"physical_floor", {{"type", "object"}, {"description", "the roofline floor checked"}}},
          {"contract",
           {{"type", "object"},
            {"description", "the result line's identity and device fields (protocol, shape, dtype, seed, "
                            "iters, rotate, rotate_k, flops, bytes, device, device_name, l2_bytes, timer, "
                            "target_sha256, contract_sha256) and shipped_contract_sha256"}}},
          {"versions",
           {{"type", "object"}, {"description", "python, torch, triton, cuda versions the script reported"}}},
          {"interpreter",
           {{"type", "object"},
            {"description",
             "path, source (HOTKERNEL_PYTHON or PATH) and torch version of the interpreter used"}}},
          {"gpu",
           {{"type", "object"},
            {"description", "GPU snapshot at bench time: name, driver, power limit, clocks, temperature, "
                            "throttle reasons"}}},
          {"commands",
           {{"type", "array"},
            {"items", {{"type", "string"}}},
            {"description", "the exact command that ran"}}},
          {"warnings",
           {{"type", "array"},
            {"items", {{"type", "string"}}},
            {"description", "things that may have disturbed the measurement"}}},
          {"started_at", {{"type", "string"}, {"description", "UTC, ISO 8601"}}},
          {"finished_at", {{"type", "string"}, {"description", "UTC, ISO 8601"}}},
          {"wall_s", {{"type", "number"}, {"description", "seconds the whole call took"}}}}},
        {"required", Json::array({"tool", "script", "script_sha256", "n", "mode", "stats", "runs",
                                  "roofline_inputs", "commands", "warnings"})}};
    spec.annotations.readOnly = true;
    spec.annotations.idempotent = false;
    spec.cliVerb = QStringLiteral("bench");
    spec.cliPositionals = QStringList{QStringLiteral("script")};
    spec.timesGpu = true;
    spec.resultKind = ToolSpec::ResultKind::Bench;
    spec.writesWorkspace = true;
    spec.headline = &BenchRun::headline;
    spec.handler = benchHandler;
    registry.add(std::move(spec));
}

} // namespace hotkernel
