// SPDX-License-Identifier: Apache-2.0
#include "measure/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace hotkernel::Statistics {

namespace {

constexpr double kTiny = 1e-300;

// Continued fraction of the regularised incomplete beta function (modified Lentz evaluation).
double betaContinuedFraction(double a, double b, double x)
{
    const double qab = a + b;
    const double qap = a + 1.0;
    const double qam = a - 1.0;
    double c = 1.0;
    double d = 1.0 - qab * x / qap;
    if (std::fabs(d) < kTiny)
        d = kTiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 10000; ++m) {
        const double m2 = 2.0 * m;
        double term = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + term * d;
        if (std::fabs(d) < kTiny)
            d = kTiny;
        c = 1.0 + term / c;
        if (std::fabs(c) < kTiny)
            c = kTiny;
        d = 1.0 / d;
        h *= d * c;
        term = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + term * d;
        if (std::fabs(d) < kTiny)
            d = kTiny;
        c = 1.0 + term / c;
        if (std::fabs(c) < kTiny)
            c = kTiny;
        d = 1.0 / d;
        const double step = d * c;
        h *= step;
        if (std::fabs(step - 1.0) < 1e-15)
            break;
    }
    return h;
}

// I_x(a, b), the regularised incomplete beta function.
double incompleteBeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double logFront =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    const double front = std::exp(logFront);
    // The fraction converges fast only on one side of the mean; use the symmetry on the other.
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * betaContinuedFraction(a, b, x) / a;
    return 1.0 - front * betaContinuedFraction(b, a, 1.0 - x) / b;
}

} // namespace

SampleStats describe(const std::vector<double> &samples)
{
    SampleStats s;
    s.n = int(samples.size());
    if (samples.empty())
        return s;
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / s.n;
    s.min = *std::min_element(samples.begin(), samples.end());
    if (s.n > 1) {
        double sum = 0;
        for (double v : samples)
            sum += (v - s.mean) * (v - s.mean);
        s.std = std::sqrt(sum / (s.n - 1));
    }
    return s;
}

double studentTCdf(double t, double df)
{
    if (std::isnan(t) || !(df > 0))
        return std::numeric_limits<double>::quiet_NaN();
    if (std::isinf(t))
        return t > 0 ? 1.0 : 0.0;
    // P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2)
    const double x = df / (df + t * t);
    const double tail = 0.5 * incompleteBeta(0.5 * df, 0.5, x);
    return t > 0 ? 1.0 - tail : tail;
}

double studentTQuantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        return std::numeric_limits<double>::quiet_NaN();
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -studentTQuantile(1.0 - p, df);
    if (df == 1.0) // Cauchy: exact
        return std::tan(M_PI * (p - 0.5));
    // Bracket, then Newton steps kept inside the bracket (bisection when a step would leave it):
    // the CDF is monotone, so this cannot diverge for any df or p, and it needs a handful of steps.
    double lo = 0;
    double hi = 1;
    while (studentTCdf(hi, df) < p && hi < 1e300) {
        lo = hi;
        hi *= 2;
    }
    const double logNorm = std::lgamma(0.5 * (df + 1)) - std::lgamma(0.5 * df) - 0.5 * std::log(df * M_PI);
    double x = 0.5 * (lo + hi);
    for (int i = 0; i < 200; ++i) {
        const double fx = studentTCdf(x, df) - p;
        if (fx == 0)
            return x;
        if (fx < 0)
            lo = x;
        else
            hi = x;
        const double density = std::exp(logNorm - 0.5 * (df + 1) * std::log1p(x * x / df));
        double next = x - fx / density;
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (std::fabs(next - x) <= 1e-14 * std::max(1.0, std::fabs(x)) ||
            hi - lo <= 1e-14 * std::max(1.0, hi))
            return next;
        x = next;
    }
    return x;
}

double welchDf(const SampleStats &a, const SampleStats &b)
{
    if (a.n < 2 || b.n < 2)
        return 0;
    const double va = a.std * a.std / a.n;
    const double vb = b.std * b.std / b.n;
    if (va + vb <= 0)
        return a.n + b.n - 2;
    const double denominator = va * va / (a.n - 1) + vb * vb / (b.n - 1);
    return (va + vb) * (va + vb) / denominator;
}

std::optional<Interval> speedupInterval(const SampleStats &b, const SampleStats &c, double confidence)
{
    if (b.n < 2 || c.n < 2 || !(b.mean > 0) || !(c.mean > 0))
        return std::nullopt;
    const double df = welchDf(b, c);
    const double q = studentTQuantile(0.5 + confidence / 2, df);
    const double q2 = q * q;
    const double vb = b.std * b.std / b.n;
    const double vc = c.std * c.std / c.n;
    // Every ratio r with (mean_b - r mean_c)^2 <= q^2 (vb + r^2 vc): a quadratic in r.
    const double qa = c.mean * c.mean - q2 * vc;
    const double qb = b.mean * c.mean;
    const double qc = b.mean * b.mean - q2 * vb;
    const double disc = qb * qb - qa * qc;
    if (qa <= 0 || disc < 0) // the candidate's mean is not distinguishable from 0: unbounded
        return std::nullopt;
    // The roots' product is qc / qa: with qc <= 0 (the baseline's mean is not distinguishable from
    // 0) the lower root is 0 or negative, which no ratio of two times can be. No interval then.
    if (qc <= 0)
        return std::nullopt;
    const double root = std::sqrt(disc);
    return Interval{(qb - root) / qa, (qb + root) / qa};
}

bool seedRuleSeparates(const SampleStats &b, const SampleStats &c)
{
    if (b.n < 1 || c.n < 1)
        return false;
    const double gap = std::fabs(b.mean - c.mean);
    return gap > 2.0 * std::sqrt(b.std * b.std / b.n + c.std * c.std / c.n);
}

double relativeHalfWidth(const Comparison &comparison)
{
    if (!comparison.ci99 || !(comparison.speedup > 0))
        return std::numeric_limits<double>::infinity();
    return (comparison.ci99->high - comparison.ci99->low) / 2.0 / comparison.speedup;
}

bool needsMorePairs(const Comparison &comparison, int pairs, double elapsedSeconds,
                    const AdaptiveOptions &options)
{
    if (pairs >= options.maxPairs || elapsedSeconds >= options.maxSeconds)
        return false;
    if (pairs < options.minPairs)
        return true;
    return relativeHalfWidth(comparison) > options.ciWidth;
}

namespace {
QString percent(double fraction)
{
    return QString::number(fraction * 100.0, 'f', 2) + QLatin1Char('%');
}
QString intervalText(const Interval &i)
{
    return QStringLiteral("[%1, %2]").arg(i.low, 0, 'f', 4).arg(i.high, 0, 'f', 4);
}
} // namespace

Comparison compare(const std::vector<double> &baselineMs, const std::vector<double> &candidateMs,
                   const ComparisonOptions &options)
{
    Comparison r;
    r.baseline = describe(baselineMs);
    r.candidate = describe(candidateMs);
    const SampleStats &b = r.baseline;
    const SampleStats &c = r.candidate;
    r.verdict = QStringLiteral("inconclusive");
    if (b.n < 1 || c.n < 1 || !(b.mean > 0) || !(c.mean > 0)) {
        r.reason = QStringLiteral("no usable timings on one side");
        return r;
    }
    r.speedup = b.mean / c.mean;
    r.ci95 = speedupInterval(b, c, 0.95);
    r.ci99 = speedupInterval(b, c, 0.99);
    r.df = welchDf(b, c);
    if (b.n >= 2 && c.n >= 2) {
        const double se = std::sqrt(b.std * b.std / b.n + c.std * c.std / c.n);
        const double gap = b.mean - c.mean;
        r.t =
            se > 0 ? gap / se : (gap == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), gap));
        r.pValue = std::isinf(r.t) ? 0.0 : 2.0 * (1.0 - studentTCdf(std::fabs(r.t), r.df));
    }

    const double effect = std::fabs(std::log(r.speedup));
    const bool bigEnough = effect >= std::log1p(options.minEffect) - 1e-12;
    const bool candidateFaster = r.speedup > 1;
    const QString direction = candidateFaster ? QStringLiteral("faster") : QStringLiteral("slower");
    const QString gapText = percent(candidateFaster ? r.speedup - 1 : 1 - r.speedup);

    bool separates = false;
    if (options.rule == VerdictRule::Seed) {
        separates = seedRuleSeparates(b, c);
        if (!separates) {
            r.reason =
                QStringLiteral("the means differ by less than 2 * sqrt(std_b^2/n + std_c^2/n) (seed rule)");
            return r;
        }
    } else {
        const auto interval = options.alpha == 0.01 ? r.ci99 : speedupInterval(b, c, 1.0 - options.alpha);
        if (!interval) {
            r.reason = b.n < 2 || c.n < 2
                           ? QStringLiteral("at least 2 runs per side are needed to estimate the spread")
                           : QStringLiteral("the timings are too noisy to bound the speedup (a side's "
                                            "spread is as large as its mean time)");
            return r;
        }
        separates = interval->low > 1 || interval->high < 1;
        if (!separates) {
            r.reason = QStringLiteral("the %1% interval of the speedup %2 contains 1 (Welch, p = %3)")
                           .arg(QString::number((1 - options.alpha) * 100, 'g', 4), intervalText(*interval))
                           .arg(r.pValue, 0, 'g', 3);
            return r;
        }
    }
    if (!bigEnough) {
        r.reason =
            QStringLiteral("the candidate is %1 %2, a real but smaller difference than the minimum effect %3")
                .arg(gapText, direction, percent(options.minEffect));
        return r;
    }
    r.verdict = direction;
    if (options.rule == VerdictRule::Seed)
        r.reason = QStringLiteral(
                       "the candidate is %1 %2: the gap of the means exceeds 2 standard errors (seed rule)")
                       .arg(gapText, direction);
    else
        r.reason = QStringLiteral(
                       "the candidate is %1 %2; the %3% interval of the speedup lies %4 1 (Welch, p = %5)")
                       .arg(gapText, direction, QString::number((1 - options.alpha) * 100, 'g', 4),
                            candidateFaster ? QStringLiteral("above") : QStringLiteral("below"))
                       .arg(r.pValue, 0, 'g', 3);
    return r;
}

QString ruleName(VerdictRule rule)
{
    return rule == VerdictRule::Seed ? QStringLiteral("seed") : QStringLiteral("welch");
}

std::optional<VerdictRule> ruleFromName(const QString &name)
{
    if (name == QLatin1String("welch"))
        return VerdictRule::Welch;
    if (name == QLatin1String("seed"))
        return VerdictRule::Seed;
    return std::nullopt;
}

} // namespace hotkernel::Statistics
