// SPDX-License-Identifier: Apache-2.0
// Simulated sweeps for issue 43's statistics: timings with a card's drift, heavy-tailed noise and
// hiccups, run in the balanced order a sweep would use and judged by SweepFamily, next to today's
// one-verify-per-candidate at a fixed n. Used by bench/sweep_stats.cpp and tst_sweepfamily.
#pragma once

#include "measure/sequentialtest.h"
#include "measure/statistics.h"

#include <QString>

#include <random>
#include <vector>

namespace hotkernel::SweepSim {

struct NoiseModel
{
    double sigma = 0.003;            // run-to-run sd of ln(time) of the baseline (H200: ~0.3%)
    double tailDf = 3;               // Student-t noise with this df (heavy tails), scaled to sd sigma
    double driftAmplitude = 0.01;    // slow drift of the card (clocks, temperature), ln units
    double driftPeriodRuns = 400;    // its period in runs, random phase per sweep
    double walkStep = 0.0005;        // plus a random walk per run
    double outlierRate = 0.02;       // a run hit by a hiccup (another process, a clock dip)
    double outlierMax = 0.5;         // ... slowed by a uniform 0 .. 50%
    double candidateSpreadMin = 0.7; // each candidate's own sd is sigma times a uniform factor
    double candidateSpreadMax = 1.5;
};

struct Outcome
{
    std::vector<QString> verdicts; // faster, slower, equivalent, inconclusive (per candidate)
    std::vector<int> pairs;        // measured pairs per candidate
    int runs = 0;                  // timed runs in the whole sweep (warm-up not counted)
};

// One sweep: candidate i's true speedup over the baseline is speedups[i] (time_b / time_c).
// Rounds visit the active candidates in a fresh random order, in groups "c_a b c_b" where both
// candidates pair with the one baseline run between them (c_a ran before it, c_b after); a lone
// candidate gets a pair of its own, "b c" and "c b" in turn.
Outcome sequentialSweep(std::mt19937_64 &rng, const std::vector<double> &speedups, const NoiseModel &noise,
                        const SequentialOptions &options);

// Today: one verify per candidate after the other, each n pairs "b c" / "c b" with their own
// baseline runs, judged by Statistics::compare with no family correction.
Outcome fixedVerifies(std::mt19937_64 &rng, const std::vector<double> &speedups, const NoiseModel &noise,
                      int n, const ComparisonOptions &options);

} // namespace hotkernel::SweepSim
