// SPDX-License-Identifier: Apache-2.0
#include "measure/pairchecks.h"

#include "base/json.h"
#include "measure/bracketclock.h"
#include "measure/runline.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace hotkernel {

namespace {

double medianOf(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Json optionalJson(std::optional<double> v)
{
    return v ? Json(*v) : Json();
}

bool cudaRun(const RunOutcome &o)
{
    return o.witnessed && stringField(o.line.json, "device") == QLatin1String("cuda");
}

} // namespace

QString PairChecks::untrusted(const RunLine &lb, const RunLine &lc, int pair, quint64 judgeSeed)
{
    for (const RunLine *l : {&lb, &lc}) {
        if (const QString why = stringField(l->json, "invalid"); !why.isEmpty())
            return QStringLiteral("the %1's run %2 cannot be trusted: %3")
                .arg(l == &lb ? QStringLiteral("baseline") : QStringLiteral("candidate"))
                .arg(pair)
                .arg(why);
    }
    // The contract's ms is the median of its samples; a line whose ms is not is no contract's.
    for (const RunLine *l : {&lb, &lc}) {
        if (!l->ok || l->samplesMs.empty())
            continue;
        const double median = medianOf(l->samplesMs);
        if (std::abs(l->ms - median) > 1e-9 * std::max(1.0, std::abs(median)))
            return QStringLiteral("the %1's run %2 reports %3 ms per call, but the median of its own samples "
                                  "is %4 ms: its result line was changed after the contract computed it")
                .arg(l == &lb ? QStringLiteral("baseline") : QStringLiteral("candidate"))
                .arg(pair)
                .arg(l->ms, 0, 'g', 6)
                .arg(median, 0, 'g', 6);
    }
    // Only a line that claims its outputs passed must show the judged inputs: a failed candidate run
    // (fn raised, a mismatch) is incorrect for its own reason, which this must not hide.
    const QString expected = stringField(lb.json, "judge_inputs_sha256");
    const QString got = stringField(lc.json, "judge_inputs_sha256");
    if (!expected.isEmpty() && got != expected && lc.ok)
        return QStringLiteral("the candidate's run %1 reports judged inputs (%2) that are not the ones the "
                              "contract draws from judge seed %3 (%4): its result line was not computed by "
                              "the contract on them; run the candidate through main(TARGET, fn)")
            .arg(pair)
            .arg(got.isEmpty() ? QStringLiteral("none") : got.left(12))
            .arg(judgeSeed)
            .arg(expected.left(12));
    return {};
}

namespace {

// The witnessed calls of a run's window (0: none to divide by).
double witnessedCalls(const RunOutcome &o)
{
    const long long replays = o.line.json.value("witness_replays", 0LL);
    const long long iters = RunLineParser::blockCalls(o.line.json);
    return replays > 0 && iters > 0 ? double(replays * iters) : 0.0;
}

} // namespace

Json PairChecks::witnessJson(const RunOutcome &o)
{
    if (!cudaRun(o) || o.witness.empty())
        return Json();
    const WitnessWindow &w = o.witness.back(); // the judged replay's
    const double calls = witnessedCalls(o);
    const auto perCall = [calls](long long ns) {
        return calls > 0 ? Json(double(ns) / 1e6 / calls) : Json();
    };
    const auto ms = o.line.json.find("ms");
    return Json{{"replays", o.line.json.value("witness_replays", 0LL)},
                {"kernels", w.kernels},
                {"dropped", w.dropped},
                {"busy_ms_per_call", perCall(w.busyNs)},
                {"span_ms_per_call", perCall(w.spanNs)},
                {"reported_ms_per_call", ms != o.line.json.end() && ms->is_number() ? *ms : Json()},
                {"graphs", w.graphIds.size()},
                {"kernels_outside_graph", w.outsideGraph},
                {"timed_windows", o.line.json.value("timed_windows", 0LL)},
                {"timed_ms_per_call", optionalJson(WitnessTrace::timedMsPerCall(o.witness, o.line.json))},
                {"bracket_ms", o.bracketSeconds >= 0 ? Json(o.bracketSeconds * 1e3) : Json()}};
}

void PairChecks::addWitnessRatios(Json &ratios, const RunOutcome &o)
{
    const Json w = witnessJson(o);
    if (!w.is_object() || !w["reported_ms_per_call"].is_number())
        return;
    // Protocol 5: the bracketed (judged) window's span over the core's bracket around it, and the
    // timed windows' time per call over the bracketed one's (BracketClock's two GPU bounds).
    const std::optional<double> timed = WitnessTrace::timedMsPerCall(o.witness, o.line.json);
    const long long replays = o.line.json.value("witness_replays", 0LL);
    const long long iters = RunLineParser::blockCalls(o.line.json);
    if (timed && o.bracketSeconds > 0 && replays > 0 && iters > 0) {
        const double spanMs = double(o.witness.back().spanNs) / 1e6;
        ratios["witnessed_over_bracket"].push_back(spanMs / (o.bracketSeconds * 1e3));
        ratios["timed_over_bracketed"].push_back(*timed / (spanMs / double(replays * iters)));
    }
    const double reported = w["reported_ms_per_call"].get<double>();
    for (const auto &[key, denominator] : {std::pair{"reported_over_busy", "busy_ms_per_call"},
                                           std::pair{"reported_over_span", "span_ms_per_call"}}) {
        if (w[denominator].is_number() && w[denominator].get<double>() > 0)
            ratios[key].push_back(reported / w[denominator].get<double>());
    }
}

QString PairChecks::witnessed(const RunOutcome &ob, const RunOutcome &oc, int pair, QString *unavailable,
                              WitnessTrace::Time time)
{
    for (const RunOutcome *o : {&ob, &oc}) {
        if (!o->witnessed && stringField(o->line.json, "device") == QLatin1String("cuda")) {
            *unavailable = QStringLiteral("hotkernel's GPU tracer, libhotkernel_tracer.so, was not loaded: "
                                          "here it is not installed beside hotkernel or named by "
                                          "HOTKERNEL_TRACER; on a remote host it could not be built there "
                                          "(see the job's log), or the runs were fresh processes");
            return {};
        }
    }
    const bool bCuda = cudaRun(ob);
    const bool cCuda = cudaRun(oc);
    const bool bNone = bCuda && WitnessTrace::unwitnessed(ob.witness, ob.line.json);
    const bool cNone = cCuda && WitnessTrace::unwitnessed(oc.witness, oc.line.json);
    const auto note = [](const RunOutcome &o) {
        const QString why = stringField(o.line.json, "witness_note");
        return why.isEmpty() ? QStringLiteral("the line gives no reason") : why;
    };
    if (cNone && bCuda && !bNone)
        return QStringLiteral("the candidate's run %1 was not witnessed by the GPU tracer although the "
                              "baseline's, started the same way, was (%2): the candidate kept the tracer "
                              "out of its process or skipped the witness replays")
            .arg(pair)
            .arg(note(oc));
    if (bNone || cNone) {
        *unavailable = note(bNone ? ob : oc);
        return {};
    }
    for (const RunOutcome *o : {&ob, &oc}) {
        if (!cudaRun(*o))
            continue;
        if (const QString why = WitnessTrace::violation(o->witness, o->line.json, time); !why.isEmpty())
            return QStringLiteral("the %1's run %2 contradicts the GPU's witness: %3")
                .arg(o == &ob ? QStringLiteral("baseline") : QStringLiteral("candidate"))
                .arg(pair)
                .arg(why);
    }
    return {};
}

QString PairChecks::differentTimers(const RunLine &lb, const RunLine &lc)
{
    const auto gpuTimer = [](const QString &timer) {
        return timer == QLatin1String("graph") || timer == QLatin1String("events");
    };
    if (lb.timer == lc.timer || !gpuTimer(lb.timer) || !gpuTimer(lc.timer))
        return {};
    const RunLine &plain = lb.timer == QLatin1String("events") ? lb : lc;
    const QString why = stringField(plain.json, "timer_note");
    return QStringLiteral("the %1 could not be captured in a CUDA graph (%2)")
        .arg(&plain == &lb ? QStringLiteral("baseline") : QStringLiteral("candidate"),
             why.isEmpty() ? QStringLiteral("its line gives no reason") : why);
}

QString PairChecks::bracketed(const RunOutcome &o, const QString &side, int pair)
{
    if (!o.bracketFault.isEmpty())
        return QStringLiteral("the %1's run %2 broke the bracket around its replays: %3")
            .arg(side)
            .arg(pair)
            .arg(o.bracketFault);
    if (!o.line.ok)
        return {}; // a failed run is judged by its failure, not by its time
    if (o.bracketSeconds < 0)
        return QStringLiteral("the %1's run %2 never said its bracketed replays were armed and done, so the "
                              "core's clock could not bound them: the contract does (protocol 5), so "
                              "something in the process kept those lines from hotkernel")
            .arg(side)
            .arg(pair);
    const long long iters = RunLineParser::blockCalls(o.line.json);
    const double bracketMs = o.bracketSeconds * 1e3;
    // A GPU run whose replays were witnessed: the bracket was around the judged replay's window
    // (the last one), replayed back to back; a CPU run: around the reported samples. A GPU run
    // without a witness (no tracer) has nothing the bracket could be held against.
    const std::optional<double> timedMs =
        cudaRun(o) ? WitnessTrace::timedMsPerCall(o.witness, o.line.json) : std::nullopt;
    const bool gpu = timedMs.has_value();
    if (!gpu && stringField(o.line.json, "device") == QLatin1String("cuda"))
        return {};
    double totalMs = 0;
    if (gpu) {
        totalMs = double(o.witness.back().spanNs) / 1e6;
    } else {
        if (iters <= 0 || o.line.samplesMs.empty())
            return {};
        for (double s : o.line.samplesMs)
            totalMs += s * double(iters);
        // The contract times a CPU block until its replays last kCpuReplaysMs or it has made
        // kCpuMaxReplays of them: samples that add up to less were not the ones it timed.
        if (totalMs < BracketClock::kCpuReplaysMs * (1 - 1e-9) &&
            o.line.samplesMs.size() < size_t(BracketClock::kCpuMaxReplays))
            return QStringLiteral(
                       "its timed replays report %1 ms in %2 blocks, but the contract times a CPU "
                       "block until its replays last %3 ms or it has made %4 of them: the %5's run "
                       "%6 reports samples other than the ones it timed")
                .arg(totalMs, 0, 'f', 3)
                .arg(o.line.samplesMs.size())
                .arg(BracketClock::kCpuReplaysMs)
                .arg(BracketClock::kCpuMaxReplays)
                .arg(side)
                .arg(pair);
    }
    const QString what = gpu ? QStringLiteral("the GPU's witness of its bracketed replays spans")
                             : QStringLiteral("its timed replays report");
    if (totalMs > bracketMs * BracketClock::kMaxTotalOverBracket + 1.0)
        return QStringLiteral(
                   "%1 %2 ms, but the core's clock saw %3 ms from its go to their end: the %4's run %5 "
                   "reports more than it took")
            .arg(what)
            .arg(totalMs, 0, 'f', 3)
            .arg(bracketMs, 0, 'f', 3)
            .arg(side)
            .arg(pair);
    const double least = gpu ? BracketClock::kMinWitnessedOverBracket : BracketClock::kMinReportedOverBracket;
    const double compared = gpu ? BracketClock::kMinComparedGpuSeconds : BracketClock::kMinComparedCpuSeconds;
    if (o.bracketSeconds >= compared && totalMs < bracketMs * least)
        return QStringLiteral("%1 %2 ms, but the core's clock saw %3 ms from its go to their end (at least "
                              "%4 of it is the replays' on an honest run): the %5's run %6 is not the time "
                              "its replays took")
            .arg(what)
            .arg(totalMs, 0, 'f', 3)
            .arg(bracketMs, 0, 'f', 3)
            .arg(least)
            .arg(side)
            .arg(pair);
    // The timed windows give the time; the bracketed window, bounded by the core's clock, must
    // not show the block much slower than they do (a witness edited for the timed replays only).
    const long long replays = o.line.json.value("witness_replays", 0LL);
    if (gpu && replays > 0 && iters > 0) {
        const double bracketedMs = totalMs / double(replays * iters);
        if (*timedMs < bracketedMs * BracketClock::kMinTimedOverBracketed)
            return QStringLiteral(
                       "its timed replays' witness shows %1 ms per call, but its bracketed replays, "
                       "which the core's clock bounds, took %2 ms per call: the %3's run %4 "
                       "is not the time its replays took")
                .arg(*timedMs, 0, 'g', 4)
                .arg(bracketedMs, 0, 'g', 4)
                .arg(side)
                .arg(pair);
    }
    return {};
}

double PairChecks::timeOf(const RunOutcome &o)
{
    if (cudaRun(o))
        if (const std::optional<double> ms = WitnessTrace::timedMsPerCall(o.witness, o.line.json))
            return *ms;
    return o.line.ms;
}

} // namespace hotkernel
