// SPDX-License-Identifier: Apache-2.0
// An always-valid sequential test of one candidate against its baseline on paired log-ratios
// (issue 43): after each pair it says continue, faster, slower, equivalent or inconclusive, and
// its error bounds hold however the pairs are stopped. Pure value type; any thread.
#pragma once

#include "measure/statistics.h"

#include <QString>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace hotkernel {

struct SequentialOptions
{
    // Two-sided, like ComparisonOptions::alpha: one candidate alone is called faster when it is not
    // with probability at most alpha / 2, and slower when it is not with at most alpha / 2.
    double alpha = 0.01;
    double minEffect = 0.01; // faster/slower need |ln speedup| >= ln(1 + minEffect); the band of "equivalent"
    int minPairs = 4;        // no verdict before; at alpha 0.01 the mixture cannot reach one below 4 anyway
    int maxPairs = 30;       // at this many pairs an undecided candidate stops as inconclusive
    // Prior variance of the standardised effect (mean / sd of the log-ratios) in the mixture. Fixed
    // before any data; chosen in bench/sweep_stats.cpp for noise of 0.3-2% and effects of 1-10%
    // (docs/verify-result.md, "Sequential verdicts").
    double priorVariance = 10;
    // Stop as inconclusive once neither an equivalent verdict (at mean 0) nor a faster/slower one
    // (at the estimate plus two standard errors) could be reached by maxPairs at the spread seen so
    // far. Stopping without a claim cannot cause a false one; it spares a noisy machine 30 pairs.
    bool futility = true;
};

enum class SequentialVerdict { Continue, Faster, Slower, Equivalent, Inconclusive };

// Which alternatives a mixture puts its prior mass on.
enum class MixtureSide { Faster, Slower, Both };

namespace SequentialStatistics {

// The scale-invariant normal-mixture Bayes factor of the log-ratios against "mean = mu0", as a
// function of n and the t statistic t = (mean - mu0) sqrt(n) / sd, n >= 2 (natural log). With the
// right-Haar prior on the spread it is a nonnegative martingale under mean = mu0 (normal
// increments, any spread), so by Ville's inequality it ever reaches 1 / x with probability <= x.
// Side Faster puts the prior on positive effects only (half-normal), Slower on negative ones.
double logBayesFactor(int n, double t, double priorVariance, MixtureSide side);

QString verdictName(SequentialVerdict verdict);

} // namespace SequentialStatistics

class SequentialTest
{
public:
    explicit SequentialTest(const SequentialOptions &options = {});

    // One measured pair, times in any unit (only their ratio counts). A pair with a time that is
    // not a positive finite number is refused (false) and changes nothing.
    bool addPair(double baselineTime, double candidateTime);
    // ln(baseline / candidate): positive when the candidate is faster.
    bool addLogRatio(double logRatio);
    // True once futility (see SequentialOptions) says no verdict can come by maxPairs.
    bool futile() const;

    const SequentialOptions &options() const { return m_options; }
    int pairs() const { return m_n; }
    double meanLogRatio() const { return m_mean; }
    double sdLogRatio() const; // sample sd (n - 1); 0 below 2 pairs
    double speedup() const;    // exp(mean log-ratio): the geometric-mean ratio baseline / candidate

    // Always-valid p-values: the smallest, over the pairs so far, of 1 / Bayes factor. Each is a
    // valid p-value at any stopping time, so they only fall as pairs come.
    double pNotFaster() const { return m_pNotFaster; } // null: the candidate is not faster (mean <= 0)
    double pNotSlower() const { return m_pNotSlower; } // null: mean >= 0
    // Two one-sided tests: null |mean| >= ln(1 + minEffect); the larger of the two sides' p.
    double pNotEquivalent() const;

    // The (1 - alpha) confidence sequence of the speedup, intersected over the pairs so far: it
    // holds the true geometric-mean speedup at every pair at once with probability >= 1 - alpha.
    // low is 0 or high infinity while the pairs cannot bound that side yet.
    // Computed on demand from the pairs' history (a bisection per pair), off the per-pair path.
    Interval speedupConfidence() const;

    // The verdict given which nulls are rejected ("not faster", "not slower", "not equivalent").
    // A family (SweepFamily) rejects by its step-down; one candidate alone, verdict(), rejects
    // each at alpha / 2. Faster and slower also need the estimate beyond minEffect, as today's
    // verify does; below minPairs it is Continue, at maxPairs an undecided one is Inconclusive.
    SequentialVerdict verdict(bool notFasterRejected, bool notSlowerRejected,
                              bool notEquivalentRejected) const;
    SequentialVerdict verdict() const;
    // One sentence for the verdict verdict() or the given one.
    QString reason(SequentialVerdict verdict) const;

private:
    void update();

    SequentialOptions m_options;
    double m_tAtCap = 0; // the t a one-sided verdict needs at maxPairs (futility)
    int m_n = 0;
    double m_mean = 0;
    double m_m2 = 0; // Welford's sum of squared deviations
    double m_pNotFaster = 1;
    double m_pNotSlower = 1;
    double m_pBelowUpper = 1; // null mean >= +m rejected: evidence the mean is below +m
    double m_pAboveLower = 1; // null mean <= -m rejected
    std::vector<std::pair<double, double>> m_history; // (mean, sd) after pair 1, 2, ...
};

} // namespace hotkernel
