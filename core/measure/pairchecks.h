// SPDX-License-Identifier: Apache-2.0
// The checks verify makes on each pair of result lines (one baseline run, one candidate run) before
// their times count: the contract's own marks, the GPU's witness, and whether both times come from
// the same timer (docs/contract.md, issue 19).
#pragma once

#include "base/json.h"
#include "measure/runline.h"
#include "measure/scriptrunner.h"

#include <QString>

namespace hotkernel {

namespace PairChecks {

// Why a pair cannot be trusted, or empty: a side's contract marked its run invalid (a patched
// timer, a tensor subclass, persisting L2 lines...), or the candidate's judged inputs are not the
// ones the contract draws from this pair's judge seed (a line not computed by the contract).
QString untrusted(const RunLine &lb, const RunLine &lc, int pair, quint64 judgeSeed);

// Why the GPU's witness of a pair contradicts its lines, or empty. A side the tracer could not
// witness at all is an accusation only when the other side, started the same way, was witnessed
// (the candidate can keep the tracer out of its own process); when neither was, the reason goes to
// *unavailable and verify warns. `time`: whether the reported times are held against the witness
// (not for a warm-up pair, see WitnessTrace::Time).
QString witnessed(const RunOutcome &ob, const RunOutcome &oc, int pair, QString *unavailable,
                  WitnessTrace::Time time = WitnessTrace::Time::Compared);

// Protocol 5 (issue 41): why a run's bracketed replays are not what the core's own clock saw
// around them (BracketClock), or empty. On a GPU run with witnessed timed replays: the judged
// replay's window (replayed back to back inside the bracket) against the bracket, and the timed
// windows' time per call against that window's; otherwise the reported samples against the
// bracket. A run whose contract never said armed and done was not bracketed.
QString bracketed(const RunOutcome &o, const QString &side, int pair);

// The run's time per call that verify compares: the GPU's (WitnessTrace::timedMsPerCall) when the
// run's timed replays were witnessed, else what the run reported.
double timeOf(const RunOutcome &o);

// What the witness of one side's run showed, for the result (null when it was not witnessed).
Json witnessJson(const RunOutcome &o);

// Appends one measured run's reported time over its witness (busy and span, per call; the ratios
// WitnessTrace's bounds apply to) to `ratios` ({"reported_over_busy": [...],
// "reported_over_span": [...]}); nothing when the run was not witnessed or reported no time.
// bench/witness_ratios.py reads them from verify results to measure the honest ratios.
void addWitnessRatios(Json &ratios, const RunOutcome &o);

// Why the two lines' times are not comparable, or empty: one side was timed as a CUDA graph
// replay, the other (whose capture failed) with events around a plain block, which also times the
// launches. verify then asks both sides for the events timer.
QString differentTimers(const RunLine &lb, const RunLine &lc);

} // namespace PairChecks

} // namespace hotkernel
