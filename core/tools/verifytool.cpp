// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "measure/uncontractedrun.h"
#include "measure/verifyrun.h"
#include "record/verifyrecord.h"
#include "session/session.h"
#include "session/toolregistry.h"
#include "tools/measureschema.h"

namespace hotkernel {

namespace {

Json described(Json schema, const char *description)
{
    schema["description"] = description;
    return schema;
}

Json sideStatsSchema(const char *description)
{
    const Json nullableNumber{{"type", Json::array({"number", "null"})}};
    return Json{{"type", "object"},
                {"description", description},
                {"properties",
                 {{"n", described(Json{{"type", "integer"}}, "measured runs")},
                  {"mean_ms", described(nullableNumber, "mean per-call ms over the measured runs")},
                  {"std_ms", described(nullableNumber, "sample standard deviation (n - 1)")},
                  {"min_ms", described(nullableNumber, "fastest run")},
                  {"samples_ms", described(Json{{"type", "array"}, {"items", {{"type", "number"}}}},
                                           "every measured run's ms, in pair order")}}},
                {"required", Json::array({"n", "mean_ms", "std_ms", "min_ms", "samples_ms"})}};
}

} // namespace

namespace {
// Not a coroutine: it only picks the run (contracted or not), whose coroutine does the work.
QCoro::Task<ToolResult> verifyHandler(Session &session, Json arguments, Job &job)
{
    if (UncontractedRun::prepare(session, arguments, {"baseline", "candidate"}))
        return UncontractedRun::verify(session, std::move(arguments), job);
    return VerifyRun::run(session, std::move(arguments), job);
}

Json verifyInputSchema()
{
    return Json{
        {"type", "object"},
        {"properties",
         {{"baseline", {{"type", "string"}, {"description", "NAME_baseline.py: the function to beat."}}},
          {"candidate", {{"type", "string"}, {"description", "NAME_candidate.py: the rewrite to judge."}}},
          {"n",
           {{"type", "integer"},
            {"minimum", 2},
            {"maximum", 1000},
            {"description", "Fixed number of pairs; leave out for adaptive n."}}},
          {"warmup", MeasureSchema::warmup("Pairs run first and dropped.")},
          {"timeout", MeasureSchema::timeout()},
          {"fresh", MeasureSchema::fresh("A new process per run instead of warm workers (slow).")},
          {"rule",
           {{"type", "string"},
            {"enum", Json::array({"welch", "seed"})},
            {"default", "welch"},
            {"description", "welch (99% interval of the speedup excludes 1) or seed (the 2-sigma rule)."}}},
          {"min_effect",
           {{"type", "number"},
            {"minimum", 0},
            {"maximum", 1},
            {"default", 0.01},
            {"description", "Smallest change called faster or slower (0.01 = 1%)."}}},
          {"ci_width",
           {{"type", "number"},
            {"exclusiveMinimum", 0},
            {"default", 0.01},
            {"description", "Adaptive n: stop when the 99% interval is within +- this."}}},
          {"max_pairs",
           {{"type", "integer"},
            {"minimum", 2},
            {"maximum", 1000},
            {"default", 30},
            {"description", "Adaptive n: most pairs."}}},
          {"max_seconds",
           {{"type", "number"},
            {"exclusiveMinimum", 0},
            {"default", 120},
            {"description", "Adaptive n: most seconds of measuring."}}}}},
        {"required", Json::array({"baseline", "candidate"})},
        {"additionalProperties", false}};
}

// docs/verify-result.md describes each field.
Json verifyOutputSchema()
{
    const Json interval{{"type", Json::array({"array", "null"})}, {"items", {{"type", "number"}}}};
    const Json str{{"type", "string"}};
    const Json strings{{"type", "array"}, {"items", {{"type", "string"}}}};
    return Json{
        {"type", "object"},
        {"description", "The verify result; docs/verify-result.md describes every field."},
        {"properties",
         {{"tool", described(Json{{"const", "verify"}}, "always verify")},
          {"verify_id", described(str, "this result's id in this session: pass it to record as verify_id "
                                       "(single use; unknown to other sessions)")},
          {"hotkernel_version", described(str, "version of hotkernel that measured")},
          {"baseline", described(str, "baseline path as given")},
          {"candidate", described(str, "candidate path as given")},
          {"baseline_path", described(str, "absolute path")},
          {"candidate_path", described(str, "absolute path")},
          {"baseline_sha256", described(str, "sha256 of the baseline's bytes at verify time")},
          {"candidate_sha256", described(str, "sha256 of the candidate's bytes at verify time")},
          {"target",
           described(Json{{"type", Json::array({"string", "null"})}}, "target name from the result lines")},
          {"verdict",
           described(Json{{"enum", Json::array({"faster", "slower", "inconclusive", "incorrect", "invalid",
                                                "claimed_faster", "claimed_slower"})}},
                     "the verdict; claimed_faster and claimed_slower only for uncontracted scripts, "
                     "whose times are their own claims")},
          {"reason", described(str, "one sentence: why this verdict")},
          {"speedup", described(Json{{"type", Json::array({"number", "null"})}},
                                "mean_b / mean_c for faster, slower and inconclusive; null when "
                                "incorrect or invalid (reason says why)")},
          {"speedup_ci95",
           described(
               interval,
               "95% interval of the speedup [low, high]; null when not computable or incorrect/invalid")},
          {"speedup_ci99",
           described(
               interval,
               "99% interval of the speedup [low, high]; null when not computable or incorrect/invalid")},
          {"rule", described(Json{{"enum", Json::array({"welch", "seed"})}}, "decision rule used")},
          {"min_effect", described(Json{{"type", "number"}}, "minimum effect for a verdict")},
          {"alpha", described(Json{{"type", "number"}}, "two-sided false-verdict rate of the welch rule")},
          {"n", described(Json{{"type", "integer"}}, "measured pairs")},
          {"warmup", described(Json{{"type", "integer"}}, "dropped warm-up pairs")},
          {"adaptive", described(Json{{"type", "boolean"}}, "n was chosen adaptively")},
          {"adaptive_limits",
           described(Json{{"type", "object"}}, "ci_width, min_pairs, max_pairs, max_seconds")},
          {"mode",
           described(Json{{"enum", Json::array({"warm", "fresh"})}}, "warm workers or a process per run")},
          {"workers_reused",
           described(Json{{"type", "object"},
                          {"properties",
                           {{"baseline", {{"type", "boolean"}}}, {"candidate", {{"type", "boolean"}}}}}},
                     "which warm workers were kept from an earlier call")},
          {"workers_from_spare", described(Json{{"type", "object"}}, "which new workers were spares")},
          {"baseline_stats", sideStatsSchema("baseline's measured runs")},
          {"candidate_stats", sideStatsSchema("candidate's measured runs")},
          {"welch", described(Json{{"type", Json::array({"object", "null"})}},
                              "t, df (Welch-Satterthwaite) and two-sided p_value of mean_b - mean_c")},
          {"contract",
           described(Json{{"type", "object"}}, "identity and device fields of the baseline's first result "
                                               "line, plus shipped_contract_sha256")},
          {"mismatches", described(strings, "why invalid, else empty")},
          {"failed_runs", described(Json{{"type", "array"}, {"items", {{"type", "object"}}}},
                                    "why incorrect: side, run, mismatch (judged_by: baseline when the "
                                    "judge outside the candidate's process found it)")},
          {"outside_judge",
           described(Json{{"type", "object"}}, "the judge outside the candidate's process: "
                                               "judge, runs_judged, wall_s, transport (file or "
                                               "cuda_ipc)")},
          {"roofline_inputs", described(Json{{"type", "object"}}, "flops and bytes of one call")},
          {"physical_floor", described(Json{{"type", "object"}}, "the roofline floor checked")},
          {"confinement",
           described(Json{{"type", "object"}},
                     "what kept each side (baseline, candidate) from writing outside its scratch: "
                     "\"landlock ABI N\", or \"none: REASON\"; a verify whose candidate is not "
                     "confined cannot be recorded (docs/contract.md)")},
          {"versions",
           described(Json{{"type", "object"}}, "python, torch, triton, cuda versions the baseline reported")},
          {"interpreter",
           described(Json{{"type", "object"}}, "path, source and torch version of the interpreter")},
          {"gpu", described(Json{{"type", "object"}}, "GPU snapshot at verify time: name, driver, power "
                                                      "limit, clocks, temperature, throttle reasons")},
          {"commands", described(strings, "the exact commands that ran")},
          {"warnings", described(strings, "things that may have disturbed the measurement")},
          {"started_at", described(str, "UTC, ISO 8601")},
          {"finished_at", described(str, "UTC, ISO 8601")},
          {"wall_s", described(Json{{"type", "number"}}, "seconds the whole call took")},
          {"phases_s", described(Json{{"type", "object"}},
                                 "where the wall time went, in seconds: workers_ready (interpreter, torch, "
                                 "inputs, first call), gpu_lock_wait, warmup, measured")},
          {"steps_s", described(Json{{"type", "object"}},
                                "seconds per step of the contract's runs, summed over all runs (warm-up "
                                "included) for baseline, candidate and judge: fill, check, time, "
                                "timed_check, judged_fill, inputs_digest, judged_replay, judged_check, "
                                "judged_write, witness, judge_*; run_wall is each run from request to "
                                "line as hotkernel saw it")}}},
        {"required", Json::array({"tool",
                                  "baseline",
                                  "candidate",
                                  "baseline_sha256",
                                  "candidate_sha256",
                                  "verdict",
                                  "reason",
                                  "speedup",
                                  "speedup_ci95",
                                  "speedup_ci99",
                                  "rule",
                                  "n",
                                  "mode",
                                  "workers_reused",
                                  "baseline_stats",
                                  "candidate_stats",
                                  "contract",
                                  "mismatches",
                                  "failed_runs",
                                  "commands",
                                  "warnings",
                                  "started_at",
                                  "finished_at"})}};
}
} // namespace

void registerVerifyTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("verify");
    spec.title = QStringLiteral("Verify a candidate against its baseline");
    spec.description = QStringLiteral(
        "Is the candidate correct and faster than the baseline? Runs both interleaved and returns "
        "faster, slower, inconclusive, incorrect (failed the fp32 check) or invalid (contract "
        "differs), the speedup with its 99% interval: the input of record. Other scripts than "
        "new_target's run uncontracted. May take minutes.");
    spec.help = QStringLiteral(
        "Decides whether a candidate script is correct and faster than its baseline. Runs both scripts "
        "interleaved "
        "in pairs with alternating order (b c, c b, ...), run i of both sides on inputs from seed + i, drops "
        "the "
        "warm-up pairs, and returns a verdict: faster, slower, inconclusive, incorrect (a candidate run "
        "failed the "
        "output check against the fp32 reference, or the baseline's process, judging the outputs the "
        "candidate wrote, found a mismatch: the candidate's own check never decides) or invalid (the two "
        "scripts disagree on the contract: "
        "shape, "
        "dtype, seed, iters, rotation, flops, bytes, target or contract hash, device; or a contract other "
        "than the "
        "one hotkernel ships; or the baseline fails its own check). The default rule is Welch's t-test at a "
        "1% "
        "false-verdict rate: faster only when the 99% interval of the speedup (mean_b / mean_c, Fieller) "
        "lies above "
        "1, slower only when below, and inconclusive when the change is smaller than min_effect; rule = seed "
        "applies the older 2-sigma rule for comparison. Without n, pairs are added until the 99% interval is "
        "within "
        "+-ci_width or max_pairs / max_seconds run out. Both scripts run in warm worker processes started in "
        "parallel (the baseline's kept between calls while unchanged; workers_reused says which were); fresh "
        "= "
        "true starts a process per run. Returns the verdict with a one-sentence reason, the speedup "
        "(mean_b / mean_c, for every verdict but incorrect and invalid) with its 95% and 99% intervals, both "
        "sides' samples and statistics, the contract, the GPU's "
        "state, interpreter, versions, exact commands and file hashes: the input of record. Fails with a "
        "message "
        "naming the run when a script crashes, hangs past timeout (its process group is killed), or prints "
        "no or "
        "malformed result lines. Holds the GPU for the whole call."
        " A script that does not import the vendored contract runs uncontracted (docs/mcp.md): `python "
        "SCRIPT ARGS...` in cwd, a process per run, its printed ms and ok taken as they are; its results are "
        "labelled uncontracted and record refuses them. Record accepts only a result a verify of the same "
        "session returned: on the command line add --record --note NOTE --who WHO.");
    spec.inputSchema = verifyInputSchema();
    UncontractedRun::addSchemaProperties(spec.inputSchema);
    spec.outputSchema = verifyOutputSchema();
    spec.annotations.readOnly = true;
    spec.cliVerb = QStringLiteral("verify");
    spec.cliPositionals = QStringList{QStringLiteral("baseline"), QStringLiteral("candidate")};
    spec.timesGpu = true;
    spec.resultKind = ToolSpec::ResultKind::Verify;
    // Its JSON is VerifyRun's: the typed value is read from it.
    spec.readsResult<VerifyRecord>();
    spec.handler = verifyHandler;
    registry.add(std::move(spec));
}

} // namespace hotkernel
