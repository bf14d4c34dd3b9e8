// SPDX-License-Identifier: Apache-2.0
// Verify's structured result (docs/verify-result.md) from its finished state: the verdict and its
// numbers, what was run and how, and where the time went.
#include "measure/verifyrun.h"
#include "measure/verifystate.h"

#include <cmath>

namespace hotkernel {

namespace {

Json verifyStatsJson(const SampleStats &s, const std::vector<double> &samples)
{
    if (s.n == 0)
        return Json{{"n", 0},
                    {"mean_ms", nullptr},
                    {"std_ms", nullptr},
                    {"min_ms", nullptr},
                    {"samples_ms", Json::array()}};
    return Json{
        {"n", s.n}, {"mean_ms", s.mean}, {"std_ms", s.std}, {"min_ms", s.min}, {"samples_ms", samples}};
}

Json verifyIntervalJson(const std::optional<Interval> &i)
{
    if (!i)
        return nullptr;
    return Json::array({i->low, i->high});
}

Json verifyTimerJson(const QString &timer)
{
    return timer.isEmpty() ? Json() : Json(toStd(timer));
}

// The verdict, the estimate and the statistics behind it.
void addVerifyVerdict(Json &r, const VerifyState &s)
{
    const Comparison &comparison = s.comparison;
    const bool measuredVerdict =
        s.verdict != QLatin1String("invalid") && s.verdict != QLatin1String("incorrect");
    r["target"] = s.b.haveFirst ? s.b.first.json.value("target", Json()) : Json();
    r["verdict"] = toStd(s.verdict);
    r["reason"] = toStd(s.reason);
    // The estimate for every measured verdict (issue 45: a slower or inconclusive verify says by how
    // much too); incorrect and invalid runs measured nothing worth a number, their reason says why.
    r["speedup"] = measuredVerdict && std::isfinite(comparison.speedup) && comparison.speedup > 0
                       ? Json(comparison.speedup)
                       : Json();
    r["speedup_ci95"] = measuredVerdict ? verifyIntervalJson(comparison.ci95) : Json();
    r["speedup_ci99"] = measuredVerdict ? verifyIntervalJson(comparison.ci99) : Json();
    r["rule"] = toStd(Statistics::ruleName(s.o.comparison.rule));
    r["min_effect"] = s.o.comparison.minEffect;
    r["alpha"] = s.o.comparison.alpha;
    r["n"] = int(s.b.ms.size());
    r["warmup"] = s.o.warmup;
    r["adaptive"] = !s.o.n.has_value();
    r["adaptive_limits"] = Json{{"ci_width", s.o.adaptive.ciWidth},
                                {"min_pairs", s.o.adaptive.minPairs},
                                {"max_pairs", s.o.adaptive.maxPairs},
                                {"max_seconds", s.o.adaptive.maxSeconds}};
    r["mode"] = toStd(s.mode);
    r["workers_reused"] = Json{{"baseline", s.b.prepared.reused}, {"candidate", s.c.prepared.reused}};
    r["workers_from_spare"] =
        Json{{"baseline", s.b.prepared.fromSpare}, {"candidate", s.c.prepared.fromSpare}};
    r["baseline_stats"] = verifyStatsJson(comparison.baseline, s.b.ms);
    r["candidate_stats"] = verifyStatsJson(comparison.candidate, s.c.ms);
    r["welch"] = comparison.baseline.n >= 2 && comparison.candidate.n >= 2
                     ? Json{{"t", std::isfinite(comparison.t) ? Json(comparison.t) : Json()},
                            {"df", comparison.df},
                            {"p_value", comparison.pValue}}
                     : Json();
}

// What ran and was checked: the contract, the timers, the judge, the floor, the isolation and the
// witness.
void addVerifyChecks(Json &r, const VerifyState &s)
{
    r["contract"] = s.b.haveFirst ? MeasureSetup::contractJson(s.b.first) : Json::object();
    if (!s.lastTimers[0].isEmpty())
        r["contract"]["timer"] = toStd(s.lastTimers[0]); // the timer of the times that count
    r["timers"] = Json{{"baseline", verifyTimerJson(s.lastTimers[0])},
                       {"candidate", verifyTimerJson(s.lastTimers[1])},
                       {"events_for_both_from_run", s.eventsForBothFrom}};
    r["contract"]["shipped_contract_sha256"] =
        s.shippedContract.isEmpty() ? Json() : Json(toStd(s.shippedContract));
    r["mismatches"] = toJson(s.mismatches);
    r["failed_runs"] = s.failedRuns;
    r["judge_seeds"] = s.judgeSeeds;
    // The judge outside the candidate's process: runs it judged and the time it took (outside the
    // timed region: after both runs of a pair).
    r["outside_judge"] =
        Json{{"judge", "baseline worker"},
             {"runs_judged", s.judgedRuns},
             {"wall_s", s.judgeSeconds},
             {"transport", s.judgedTransport.isEmpty() ? Json() : Json(toStd(s.judgedTransport))}};
    r["roofline_inputs"] = Json{{"flops", r["contract"].value("flops", Json())},
                                {"bytes", r["contract"].value("bytes", Json())}};
    r["physical_floor"] = s.physicalFloor;
    r["confinement"] =
        Json{{"baseline", toStd(s.confinedBaseline)}, {"candidate", toStd(s.confinedCandidate)}};
    r["frozen"] = s.isolation->frozenJson();
    r["run_conditions"] = s.isolation->conditionsJson();
    r["witness"] = s.witness.is_null() ? Json::object() : s.witness;
    r["witness_ratios"] = s.witnessRatios;
}

// Where it ran, with what, when, and where the wall time went.
void addVerifyProvenance(Json &r, const VerifyState &s)
{
    r["versions"] = s.b.haveFirst ? MeasureSetup::versionsJson(s.b.first) : Json::object();
    r["interpreter"] = MeasureSetup::interpreterJson(s.python);
    r["gpu"] = s.gpu;
    if (Json host = MeasureSetup::hostJson(*s.session); !host.is_null())
        r["host"] = std::move(host);
    r["commands"] =
        toJson(QStringList{s.b.prepared.runner->commandLine(), s.c.prepared.runner->commandLine()});
    r["warnings"] = toJson(s.warnings);
    r["started_at"] = toStd(s.startedAt);
    r["finished_at"] = toStd(MeasureSetup::utcNow());
    r["wall_s"] = s.wall.nsecsElapsed() / 1e9;
    // Where the wall time went: until both workers were ready (interpreter, torch, inputs, first
    // call; the baseline's warm-up run overlaps the candidate's start), waiting for the GPU lock, the
    // rest of the warm-up pairs, the measured pairs.
    r["phases_s"] = Json{{"workers_ready", s.readyAt},
                         {"gpu_lock_wait", s.lockWait},
                         {"warmup", s.measuringAt - std::max(s.readyAt, s.lockedAt)},
                         {"measured", s.pairsDoneAt - s.measuringAt}};
    r["steps_s"] = s.steps;
}

} // namespace

ToolResult VerifyPhases::result(const VerifyState &s)
{
    Json r = MeasureSetup::verifyResultHead(s.b.file, s.c.file);
    addVerifyVerdict(r, s);
    addVerifyChecks(r, s);
    addVerifyProvenance(r, s);
    return ToolResult::success(r, VerifyRun::text(r));
}

} // namespace hotkernel
