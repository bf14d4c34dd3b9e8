// SPDX-License-Identifier: Apache-2.0
// Issue 43's statistics, simulated: >= 10,000 sweeps per row with a shared baseline, drift,
// heavy-tailed noise and hiccups; the family error, power and pairs of the sequential sweep
// (SweepFamily) next to today's separate verifies at n = 7, and Dunnett's bound next to Holm's.
// Run: build/<dir>/bench/hotkernel_sweep_bench [--sweeps N] [--seed S] [--prior G] [--noise
// h200|h200+hiccups|noisy]
//      [--hiccups RATE] [--min-effect FRACTION] [--futility 0|1]
// The table in docs/verify-result.md ("Sequential verdicts") is its output.
#include "sweepsim.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace hotkernel;

namespace {

constexpr double kSlower3 = 1 / 1.03; // the candidate takes 3% longer
constexpr double kFaster10 = 1.10;

struct Row
{
    int sweeps = 0;
    int anyFalseFaster = 0; // sweeps where a candidate that is not faster was called faster
    int anyFalseSlower = 0;
    int anyFalse = 0;
    int different = 0;      // candidates 3% slower or 10% faster
    int differentRight = 0; // ... called so
    int differentEquivalent = 0;
    int equal = 0;
    int equalEquivalent = 0;
    double pairs = 0; // summed over candidates
    double runs = 0;  // summed over sweeps
    int candidates = 0;
};

void account(Row &row, const std::vector<double> &speedups, const SweepSim::Outcome &o)
{
    bool falseFaster = false;
    bool falseSlower = false;
    for (size_t i = 0; i < speedups.size(); ++i) {
        const double s = speedups[i];
        const QString &v = o.verdicts[i];
        falseFaster |= s <= 1 && v == QLatin1String("faster");
        falseSlower |= s >= 1 && v == QLatin1String("slower");
        if (s == 1) {
            ++row.equal;
            row.equalEquivalent += v == QLatin1String("equivalent");
        } else {
            ++row.different;
            row.differentRight += v == (s > 1 ? QLatin1String("faster") : QLatin1String("slower"));
            row.differentEquivalent += v == QLatin1String("equivalent");
        }
        row.pairs += o.pairs[i];
    }
    ++row.sweeps;
    row.candidates += int(speedups.size());
    row.anyFalseFaster += falseFaster;
    row.anyFalseSlower += falseSlower;
    row.anyFalse += falseFaster || falseSlower;
    row.runs += o.runs;
}

QString rate(int count, int total)
{
    if (total == 0)
        return QStringLiteral("-");
    return QString::number(100.0 * count / total, 'f', 2) + QLatin1Char('%');
}

std::vector<double> scenario(const QString &name, int k)
{
    std::vector<double> s(size_t(k), 1.0);
    if (name == QLatin1String("3% slower"))
        std::fill(s.begin(), s.end(), kSlower3);
    else if (name == QLatin1String("10% faster"))
        std::fill(s.begin(), s.end(), kFaster10);
    else if (name == QLatin1String("mixed")) // a quarter 3% slower, a quarter 10% faster, the rest equal
        for (int i = 0; i < k / 4; ++i) {
            s[size_t(i)] = kSlower3;
            s[size_t(k / 4 + i)] = kFaster10;
        }
    return s;
}

void printRow(const QString &noise, int k, const QString &name, const QString &method, const Row &r,
              int fixedN)
{
    const double meanPairs = r.pairs / r.candidates;
    const double meanRuns = r.runs / r.sweeps;
    const double fixedRuns = 2.0 * fixedN * k;
    std::printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %.2f | %.1f | %+.0f%% |\n", qPrintable(noise),
                k, qPrintable(name), qPrintable(method), qPrintable(rate(r.anyFalseFaster, r.sweeps)),
                qPrintable(rate(r.anyFalse, r.sweeps)), qPrintable(rate(r.differentRight, r.different)),
                qPrintable(rate(r.equalEquivalent, r.equal)),
                qPrintable(rate(r.differentEquivalent, r.different)), meanPairs, meanRuns,
                100.0 * (1 - meanRuns / fixedRuns));
    std::fflush(stdout);
}

// z with P(|Z| > z) = p, by bisection on erfc.
double twoSidedCritical(double p)
{
    double lo = 0;
    double hi = 10;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (std::erfc(mid / std::sqrt(2.0)) > p)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

// Two-sided critical values at family alpha for K comparisons: Bonferroni (Holm's first step)
// and Dunnett's for equicorrelated normal statistics (Monte Carlo), at correlation rho.
void dunnettVersusHolm(std::mt19937_64 &rng, double alpha)
{
    const int draws = 400000;
    std::normal_distribution<double> normal;
    std::printf("\nCritical |z| at family alpha %.2f, two-sided (normal limit):\n", alpha);
    std::printf("| K | Bonferroni/Holm first step | Dunnett rho=0.5 | pairs Holm needs over Dunnett |\n"
                "|---|---|---|---|\n");
    for (int k : {4, 8}) {
        const double bonferroni = twoSidedCritical(alpha / k);
        std::vector<double> maxima(draws);
        const double rho = 0.5;
        for (double &m : maxima) {
            const double shared = normal(rng);
            double best = 0;
            for (int i = 0; i < k; ++i)
                best = std::max(best, std::fabs(std::sqrt(rho) * shared + std::sqrt(1 - rho) * normal(rng)));
            m = best;
        }
        std::sort(maxima.begin(), maxima.end());
        const double dunnett = maxima[size_t((1 - alpha) * draws)];
        std::printf("| %d | %.3f | %.3f | %+.1f%% |\n", k, bonferroni, dunnett,
                    100.0 * (bonferroni * bonferroni / (dunnett * dunnett) - 1));
    }
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto value = [&](const char *flag, const QString &fallback) {
        const int i = int(args.indexOf(QLatin1String(flag)));
        return i >= 0 && i + 1 < args.size() ? args[i + 1] : fallback;
    };
    const int sweeps = value("--sweeps", QStringLiteral("10000")).toInt();
    const quint64 seed = value("--seed", QStringLiteral("43")).toULongLong();
    const QString onlyNoise = value("--noise", QString());
    SequentialOptions options;
    options.priorVariance = value("--prior", QStringLiteral("10")).toDouble();
    // --min-effect 0 checks the test alone: any sign of a difference counts as a verdict.
    options.minEffect = value("--min-effect", QStringLiteral("0.01")).toDouble();
    options.futility = value("--futility", QStringLiteral("1")).toInt() != 0;
    const int fixedN = 7;
    ComparisonOptions today; // welch, alpha 0.01
    today.minEffect = options.minEffect;

    std::printf("Sweeps per row: %d, seed %llu, alpha %.2f, min effect %.0f%%, pairs %d..%d, prior "
                "variance %.1f, futility %s\n\n",
                sweeps, (unsigned long long)seed, options.alpha, options.minEffect * 100, options.minPairs,
                options.maxPairs, options.priorVariance, options.futility ? "on" : "off");
    std::printf(
        "| noise | K | truth | method | any false faster | any false faster/slower | power (3%% slower, "
        "10%% faster) | equal called equivalent | different called equivalent | mean pairs per "
        "candidate | mean runs per sweep | runs saved vs K verifies at n=%d |\n",
        fixedN);
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    QElapsedTimer clock;
    clock.start();
    struct Noise
    {
        QString name;
        SweepSim::NoiseModel model;
    };
    std::vector<Noise> noises;
    // The H200's spread (0.3%) with the card's drift and heavy tails; then the same with hiccups
    // (1% of runs up to 30% slower: pessimistic for runs that are each a median of replays); then
    // a noisy machine (2%, 3% of runs up to 50% slower).
    SweepSim::NoiseModel h200;
    h200.outlierRate = 0;
    noises.push_back({QStringLiteral("h200"), h200});
    SweepSim::NoiseModel bursts = h200;
    bursts.outlierRate = 0.01;
    bursts.outlierMax = 0.3;
    noises.push_back({QStringLiteral("h200+hiccups"), bursts});
    SweepSim::NoiseModel noisy;
    noisy.sigma = 0.02;
    noisy.outlierRate = 0.03;
    noises.push_back({QStringLiteral("noisy"), noisy});
    const double hiccups = value("--hiccups", QStringLiteral("-1")).toDouble(); // override, to see their cost
    if (hiccups >= 0)
        for (Noise &n : noises)
            n.model.outlierRate = hiccups;
    quint64 rowSeed = seed;
    for (const Noise &noise : noises) {
        if (!onlyNoise.isEmpty() && onlyNoise != noise.name)
            continue;
        for (int k : {1, 4, 8}) {
            QStringList names = {QStringLiteral("all equal")};
            if (k == 1)
                names << QStringLiteral("3% slower") << QStringLiteral("10% faster");
            else
                names << QStringLiteral("mixed");
            for (const QString &name : names) {
                const std::vector<double> speedups = scenario(name, k);
                Row sequential;
                Row fixed;
                std::mt19937_64 rngS(++rowSeed);
                std::mt19937_64 rngF(rowSeed * 7919);
                for (int s = 0; s < sweeps; ++s) {
                    account(sequential, speedups,
                            SweepSim::sequentialSweep(rngS, speedups, noise.model, options));
                    account(fixed, speedups,
                            SweepSim::fixedVerifies(rngF, speedups, noise.model, fixedN, today));
                }
                printRow(noise.name, k, name, QStringLiteral("sequential, Holm"), sequential, fixedN);
                printRow(noise.name, k, name, QStringLiteral("today: n=7 each"), fixed, fixedN);
            }
        }
    }
    std::mt19937_64 rng(seed);
    dunnettVersusHolm(rng, options.alpha);
    std::printf("\n%.1f s\n", clock.elapsed() / 1000.0);
    return 0;
}
