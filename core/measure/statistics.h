// SPDX-License-Identifier: Apache-2.0
// The numbers behind a verdict: sample summaries, Welch's t-test, Student-t quantiles, the
// speedup's confidence intervals, and both decision rules. Pure functions; any thread.
#pragma once

#include <QString>

#include <optional>
#include <vector>

namespace hotkernel {

struct SampleStats
{
    int n = 0;
    double mean = 0;
    double std = 0; // sample standard deviation (n - 1); 0 when n < 2
    double min = 0;
};

struct Interval
{
    double low = 0;
    double high = 0;
};

enum class VerdictRule { Welch, Seed };

struct Comparison
{
    SampleStats baseline;
    SampleStats candidate;
    double speedup = 0;           // mean_b / mean_c
    std::optional<Interval> ci95; // Fieller intervals of the speedup; empty when not computable
    std::optional<Interval> ci99;
    double t = 0;      // Welch statistic of mean_b - mean_c
    double df = 0;     // Welch-Satterthwaite degrees of freedom
    double pValue = 1; // two-sided
    QString verdict;   // "faster", "slower" or "inconclusive"
    QString reason;    // one sentence
};

struct ComparisonOptions
{
    VerdictRule rule = VerdictRule::Welch;
    double alpha = 0.01;     // two-sided false-verdict rate of the welch rule
    double minEffect = 0.01; // |ln speedup| below ln(1 + minEffect) is inconclusive (both rules)
};

// When adaptive n stops adding pairs (see docs/verify-result.md for why these defaults).
struct AdaptiveOptions
{
    int minPairs = 5;        // below this the spread estimate is too rough to trust a width
    int maxPairs = 30;       // pair budget
    double ciWidth = 0.01;   // stop once the 99% interval is within +-ciWidth of the speedup
    double maxSeconds = 120; // time budget for the measured pairs
};

namespace Statistics {

SampleStats describe(const std::vector<double> &samples);

// Student's t distribution with df > 0 degrees of freedom (df need not be an integer).
double studentTCdf(double t, double df);
double studentTQuantile(double p, double df); // inverse of studentTCdf, 0 < p < 1

// Welch-Satterthwaite degrees of freedom of mean_a - mean_b; n_a + n_b - 2 when both variances are 0.
double welchDf(const SampleStats &a, const SampleStats &b);

// Fieller's interval for mean_b / mean_c at the given confidence, with Welch-Satterthwaite df.
// It excludes 1 exactly when Welch's two-sided test rejects equal means at 1 - confidence.
std::optional<Interval> speedupInterval(const SampleStats &b, const SampleStats &c, double confidence);

// The seed's rule: |mean_b - mean_c| > 2 * sqrt(std_b^2 / n_b + std_c^2 / n_c).
bool seedRuleSeparates(const SampleStats &b, const SampleStats &c);

// Half-width of the 99% interval relative to the speedup; infinity when not computable.
double relativeHalfWidth(const Comparison &comparison);

// True while adaptive n should measure another pair after `pairs` measured pairs.
bool needsMorePairs(const Comparison &comparison, int pairs, double elapsedSeconds,
                    const AdaptiveOptions &options);

Comparison compare(const std::vector<double> &baselineMs, const std::vector<double> &candidateMs,
                   const ComparisonOptions &options = {});

QString ruleName(VerdictRule rule);
std::optional<VerdictRule> ruleFromName(const QString &name);

} // namespace Statistics
} // namespace hotkernel
