// SPDX-License-Identifier: Apache-2.0
#include "measure/sequentialtest.h"

#include <algorithm>

namespace hotkernel {

namespace SequentialStatistics {

double logBayesFactor(int n, double t, double priorVariance, MixtureSide side)
{
    // n = 1 carries only a sign; the martingale is simply not looked at there (Ville's bound holds
    // for any subset of looks).
    if (n < 2 || !(priorVariance > 0) || std::isnan(t))
        return 0;
    const double g = priorVariance;
    const double nu = n - 1;
    const double a = 1 + n * g;
    double logBoth = 0;
    double z = 0; // the half-normal prior's weight is 2 T_n(z) (Student-t CDF with n df)
    if (std::isinf(t)) {
        // All pairs equal and unequal to mu0: the limit of the finite form.
        logBoth = 0.5 * nu * std::log(a);
        z = std::copysign(n * std::sqrt(g), t);
    } else {
        logBoth = -0.5 * std::log(a) + 0.5 * n * (std::log1p(t * t / nu) - std::log1p(t * t / (nu * a)));
        z = n * t * std::sqrt(g) / std::sqrt(nu * a + t * t);
    }
    if (side == MixtureSide::Both)
        return logBoth;
    const double tail = Statistics::studentTCdf(side == MixtureSide::Faster ? z : -z, n);
    return logBoth + std::log(2 * tail);
}

QString verdictName(SequentialVerdict verdict)
{
    switch (verdict) {
    case SequentialVerdict::Continue:
        return QStringLiteral("continue");
    case SequentialVerdict::Faster:
        return QStringLiteral("faster");
    case SequentialVerdict::Slower:
        return QStringLiteral("slower");
    case SequentialVerdict::Equivalent:
        return QStringLiteral("equivalent");
    case SequentialVerdict::Inconclusive:
        return QStringLiteral("inconclusive");
    }
    return {};
}

} // namespace SequentialStatistics

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The t at which the one-sided (Faster) mixture reaches logThreshold; infinity when even
// identical pairs could not reach it at this n. The factor rises with t, so bisection is safe.
double criticalT(int n, double priorVariance, double logThreshold)
{
    using SequentialStatistics::logBayesFactor;
    if (logBayesFactor(n, kInf, priorVariance, MixtureSide::Faster) < logThreshold)
        return kInf;
    double lo = 0;
    double hi = 1;
    while (logBayesFactor(n, hi, priorVariance, MixtureSide::Faster) < logThreshold && hi < 1e12) {
        lo = hi;
        hi *= 2;
    }
    for (int i = 0; i < 100 && hi - lo > 1e-10 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (logBayesFactor(n, mid, priorVariance, MixtureSide::Faster) < logThreshold)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

QString percent(double fraction)
{
    return QString::number(fraction * 100.0, 'f', 2) + QLatin1Char('%');
}

} // namespace

SequentialTest::SequentialTest(const SequentialOptions &options)
    : m_options(options),
      m_tAtCap(criticalT(options.maxPairs, options.priorVariance, std::log(2.0 / options.alpha)))
{}

bool SequentialTest::addPair(double baselineTime, double candidateTime)
{
    if (!(baselineTime > 0) || !(candidateTime > 0) || std::isinf(baselineTime) || std::isinf(candidateTime))
        return false;
    return addLogRatio(std::log(baselineTime) - std::log(candidateTime));
}

bool SequentialTest::addLogRatio(double logRatio)
{
    if (!std::isfinite(logRatio))
        return false;
    ++m_n;
    const double delta = logRatio - m_mean;
    m_mean += delta / m_n;
    m_m2 += delta * (logRatio - m_mean);
    m_history.emplace_back(m_mean, sdLogRatio());
    update();
    return true;
}

bool SequentialTest::futile() const
{
    if (!m_options.futility || m_n < m_options.minPairs || m_n >= m_options.maxPairs)
        return false;
    const double sd = sdLogRatio();
    if (!(sd > 0))
        return false;
    const int cap = m_options.maxPairs;
    const double tCap = m_tAtCap;
    if (!std::isfinite(tCap))
        return true;
    const double band = std::log1p(m_options.minEffect);
    const double rootCap = std::sqrt(double(cap));
    const bool equivalentReachable = band > 0 && band * rootCap / sd >= tCap;
    const double hopeful = std::max(std::fabs(m_mean) + 2 * sd / std::sqrt(double(m_n)), band);
    const bool directionReachable = hopeful * rootCap / sd >= tCap;
    return !equivalentReachable && !directionReachable;
}

double SequentialTest::sdLogRatio() const
{
    return m_n < 2 ? 0.0 : std::sqrt(std::max(0.0, m_m2) / (m_n - 1));
}

double SequentialTest::speedup() const
{
    return std::exp(m_mean);
}

double SequentialTest::pNotEquivalent() const
{
    return std::max(m_pBelowUpper, m_pAboveLower);
}

void SequentialTest::update()
{
    if (m_n < 2)
        return;
    using SequentialStatistics::logBayesFactor;
    const double g = m_options.priorVariance;
    const double sd = sdLogRatio();
    const double rootN = std::sqrt(double(m_n));
    // Tiny spreads and gaps are the rounding of equal log-ratios, not information: equal times
    // that round differently must not become infinite evidence.
    constexpr double kRounding = 1e-12;
    const bool noSpread = sd <= kRounding * std::max(1.0, std::fabs(m_mean));
    auto tAt = [&](double mu0) {
        const double gap = m_mean - mu0;
        if (noSpread)
            return std::fabs(gap) <= kRounding ? 0.0 : std::copysign(kInf, gap);
        return gap * rootN / sd;
    };
    auto pOf = [](double logFactor) { return std::min(1.0, std::exp(-logFactor)); };
    const double band = std::log1p(m_options.minEffect);
    m_pNotFaster = std::min(m_pNotFaster, pOf(logBayesFactor(m_n, tAt(0), g, MixtureSide::Faster)));
    m_pNotSlower = std::min(m_pNotSlower, pOf(logBayesFactor(m_n, tAt(0), g, MixtureSide::Slower)));
    m_pBelowUpper = std::min(m_pBelowUpper, pOf(logBayesFactor(m_n, tAt(band), g, MixtureSide::Slower)));
    m_pAboveLower = std::min(m_pAboveLower, pOf(logBayesFactor(m_n, tAt(-band), g, MixtureSide::Faster)));
}

Interval SequentialTest::speedupConfidence() const
{
    // Each side at alpha / 2; the Slower mixture at -t equals the Faster one at t, so one critical
    // t serves both sides. Intersected over the pairs: the sequence holds at all of them at once.
    double low = -kInf;
    double high = kInf;
    const double logThreshold = std::log(2.0 / m_options.alpha);
    for (size_t i = 1; i < m_history.size(); ++i) {
        const int n = int(i) + 1;
        const double tStar = criticalT(n, m_options.priorVariance, logThreshold);
        if (!std::isfinite(tStar))
            continue;
        const auto [mean, sd] = m_history[i];
        const double halfWidth = tStar * sd / std::sqrt(double(n));
        low = std::max(low, mean - halfWidth);
        high = std::min(high, mean + halfWidth);
    }
    return {std::exp(low), std::exp(high)};
}

SequentialVerdict SequentialTest::verdict(bool notFasterRejected, bool notSlowerRejected,
                                          bool notEquivalentRejected) const
{
    if (m_n < m_options.minPairs)
        return m_n >= m_options.maxPairs ? SequentialVerdict::Inconclusive : SequentialVerdict::Continue;
    const double band = std::log1p(m_options.minEffect) - 1e-12;
    if (notFasterRejected && m_mean >= band)
        return SequentialVerdict::Faster;
    if (notSlowerRejected && m_mean <= -band)
        return SequentialVerdict::Slower;
    if (notEquivalentRejected)
        return SequentialVerdict::Equivalent;
    return m_n >= m_options.maxPairs || futile() ? SequentialVerdict::Inconclusive
                                                 : SequentialVerdict::Continue;
}

SequentialVerdict SequentialTest::verdict() const
{
    const double level = m_options.alpha / 2;
    return verdict(m_pNotFaster <= level, m_pNotSlower <= level, pNotEquivalent() <= level);
}

QString SequentialTest::reason(SequentialVerdict verdict) const
{
    const double s = speedup();
    const QString gap =
        s >= 1 ? percent(s - 1) + QStringLiteral(" faster") : percent(1 - s) + QStringLiteral(" slower");
    const Interval ci = speedupConfidence();
    const QString sequence = QStringLiteral("[%1, %2]").arg(ci.low, 0, 'f', 4).arg(ci.high, 0, 'f', 4);
    const QString level = QString::number((1 - m_options.alpha) * 100, 'g', 4);
    switch (verdict) {
    case SequentialVerdict::Faster:
    case SequentialVerdict::Slower: {
        const bool faster = verdict == SequentialVerdict::Faster;
        return QStringLiteral("the candidate is %1 after %2 pairs; \"%3\" is rejected (always-valid "
                              "p = %4), %5% confidence sequence of the speedup %6")
            .arg(gap)
            .arg(m_n)
            .arg(faster ? QStringLiteral("not faster") : QStringLiteral("not slower"))
            .arg(faster ? m_pNotFaster : m_pNotSlower, 0, 'g', 3)
            .arg(level, sequence);
    }
    case SequentialVerdict::Equivalent:
        return QStringLiteral("the candidate is within the minimum effect %1 of the baseline after %2 pairs "
                              "(%3; always-valid p of a larger difference = %4)")
            .arg(percent(m_options.minEffect))
            .arg(m_n)
            .arg(gap)
            .arg(pNotEquivalent(), 0, 'g', 3);
    case SequentialVerdict::Inconclusive:
        if (m_n < m_options.maxPairs)
            return QStringLiteral(
                       "no verdict could come within the cap of %1 pairs at the spread of these %2 "
                       "(sd of the log-ratios %3): the candidate is %4, %5% confidence sequence of "
                       "the speedup %6")
                .arg(m_options.maxPairs)
                .arg(m_n)
                .arg(percent(sdLogRatio()))
                .arg(gap, level, sequence);
        return QStringLiteral("no verdict within the cap of %1 pairs: the candidate is %2, %3% confidence "
                              "sequence of the speedup %4")
            .arg(m_options.maxPairs)
            .arg(gap, level, sequence);
    case SequentialVerdict::Continue:
        break;
    }
    return QStringLiteral("%1 pairs so far: the candidate is %2, %3% confidence sequence of the speedup %4")
        .arg(m_n)
        .arg(gap, level, sequence);
}

} // namespace hotkernel
