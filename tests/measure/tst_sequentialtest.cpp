// SPDX-License-Identifier: Apache-2.0
#include "measure/sequentialtest.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace hotkernel;
using SequentialStatistics::logBayesFactor;

namespace {

// The Bayes factor from its definition, by brute-force quadrature: normal log-ratios with mean
// delta * sigma, a half-normal (or normal) prior of variance g on delta, the right-Haar prior
// d sigma / sigma (u = 1 / sigma), against mean 0. Slow and independent of the closed form.
double bayesFactorByQuadrature(const std::vector<double> &d, double g, MixtureSide side)
{
    const int n = int(d.size());
    double q = 0;
    double s = 0;
    for (double x : d) {
        q += x * x;
        s += x;
    }
    auto inner = [&](double delta) { // integral over u of u^(n-1) exp(-(q u^2 - 2 delta s u + n delta^2) / 2)
        const double top = 60.0 / std::sqrt(q / n);
        const int steps = 4000;
        double sum = 0;
        for (int i = 1; i < steps; ++i) {
            const double u = top * i / steps;
            sum += std::pow(u, n - 1) * std::exp(-(q * u * u - 2 * delta * s * u + n * delta * delta) / 2);
        }
        return sum * top / steps;
    };
    const double lo = side == MixtureSide::Faster ? 0.0 : -12 * std::sqrt(g);
    const double hi = side == MixtureSide::Slower ? 0.0 : 12 * std::sqrt(g);
    const double weight = side == MixtureSide::Both ? 1.0 : 2.0;
    const int steps = 2000;
    double numerator = 0;
    for (int i = 0; i <= steps; ++i) {
        const double delta = lo + (hi - lo) * i / steps;
        const double prior = weight * std::exp(-delta * delta / (2 * g)) / std::sqrt(2 * M_PI * g);
        numerator += (i == 0 || i == steps ? 0.5 : 1.0) * prior * inner(delta);
    }
    numerator *= (hi - lo) / steps;
    return numerator / inner(0);
}

double tOf(const std::vector<double> &d)
{
    double mean = 0;
    for (double x : d)
        mean += x;
    mean /= double(d.size());
    double ss = 0;
    for (double x : d)
        ss += (x - mean) * (x - mean);
    return mean * std::sqrt(double(d.size())) / std::sqrt(ss / double(d.size() - 1));
}

// Pairs of a baseline of 35 us and a candidate `speedup` times faster, 0.3% normal noise each.
SequentialTest feed(std::mt19937_64 &rng, double speedup, int pairs, const SequentialOptions &o = {},
                    double scale = 1.0)
{
    std::normal_distribution<double> noise(0, 0.003);
    SequentialTest test(o);
    for (int i = 0; i < pairs; ++i)
        test.addPair(scale * 0.035 * std::exp(noise(rng)), scale * 0.035 / speedup * std::exp(noise(rng)));
    return test;
}

} // namespace

class TestSequentialTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void closedFormMatchesTheDefinition_data()
    {
        QTest::addColumn<int>("side");
        QTest::newRow("both") << int(MixtureSide::Both);
        QTest::newRow("faster") << int(MixtureSide::Faster);
        QTest::newRow("slower") << int(MixtureSide::Slower);
    }
    void closedFormMatchesTheDefinition()
    {
        QFETCH(int, side);
        const std::vector<double> d = {0.3, 1.1, 0.7, -0.2, 0.9};
        for (double g : {1.0, 10.0}) {
            const double expected = bayesFactorByQuadrature(d, g, MixtureSide(side));
            const double closed = std::exp(logBayesFactor(int(d.size()), tOf(d), g, MixtureSide(side)));
            QVERIFY2(
                std::fabs(closed / expected - 1) < 1e-3,
                qPrintable(
                    QStringLiteral("g %1: closed form %2, quadrature %3").arg(g).arg(closed).arg(expected)));
        }
    }

    void sidesAreConsistent()
    {
        for (int n : {2, 3, 5, 12, 30})
            for (double t : {-8.0, -1.5, 0.0, 0.4, 3.0, 20.0}) {
                const double both = std::exp(logBayesFactor(n, t, 10, MixtureSide::Both));
                const double faster = std::exp(logBayesFactor(n, t, 10, MixtureSide::Faster));
                const double slower = std::exp(logBayesFactor(n, t, 10, MixtureSide::Slower));
                QVERIFY(std::fabs((faster + slower) / 2 - both) < 1e-9 * std::max(1.0, both));
                QCOMPARE(logBayesFactor(n, -t, 10, MixtureSide::Slower),
                         logBayesFactor(n, t, 10, MixtureSide::Faster));
            }
        // The one-sided factor rises with t (what makes "mean <= 0" rejectable at mean = 0 alone).
        for (int n : {3, 8, 30}) {
            double previous = -1e300;
            for (double t = -30; t <= 30; t += 0.25) {
                const double f = logBayesFactor(n, t, 10, MixtureSide::Faster);
                QVERIFY2(f >= previous, qPrintable(QStringLiteral("n %1 t %2").arg(n).arg(t)));
                previous = f;
            }
        }
        QCOMPARE(logBayesFactor(1, 5.0, 10, MixtureSide::Faster), 0.0);
    }

    // Ville's inequality, observed: normal log-ratios of mean 0 and any spread, watched after every
    // pair up to 30, reach "faster" evidence 1 / 0.05 in at most 5% of sequences.
    void optionalStoppingKeepsTheLevel()
    {
        std::mt19937_64 rng(7);
        std::normal_distribution<double> normal;
        std::uniform_real_distribution<double> spread(0.001, 0.1);
        const int trials = 4000;
        int rejected = 0;
        for (int i = 0; i < trials; ++i) {
            SequentialOptions o;
            o.minEffect = 0;
            SequentialTest test(o);
            const double sd = spread(rng);
            for (int p = 0; p < 30 && test.pNotFaster() > 0.05; ++p)
                test.addLogRatio(sd * normal(rng));
            rejected += test.pNotFaster() <= 0.05;
        }
        QVERIFY2(rejected <= trials * 0.05, qPrintable(QString::number(rejected)));
        QVERIFY2(rejected > 0, "the test never rejects: too strict to be useful"); // it is not vacuous
    }

    // The confidence sequence holds the true speedup at every pair at once in >= 1 - alpha of runs.
    // It is intersected over the pairs, so holding it after the last pair means it held at each.
    void confidenceSequenceCovers()
    {
        std::mt19937_64 rng(12);
        std::normal_distribution<double> normal;
        std::uniform_real_distribution<double> spread(0.002, 0.05);
        std::uniform_real_distribution<double> effect(-0.1, 0.1);
        const int trials = 1000;
        int missed = 0;
        for (int i = 0; i < trials; ++i) {
            SequentialOptions o;
            o.alpha = 0.1;
            SequentialTest test(o);
            const double mu = effect(rng);
            const double sd = spread(rng);
            for (int p = 0; p < 30; ++p)
                test.addLogRatio(mu + sd * normal(rng));
            const Interval ci = test.speedupConfidence();
            QVERIFY(ci.low > 0 && ci.high < 2); // bounded after 30 pairs
            missed += !(ci.low <= std::exp(mu) && std::exp(mu) <= ci.high);
        }
        QVERIFY2(missed <= trials * 0.1, qPrintable(QString::number(missed)));
        QVERIFY2(missed > 0, "never missed: the sequence is no test of anything"); // not vacuous at 10%
    }

    void roundingIsNotEvidence()
    {
        // Equal times whose ratio rounds to a hair off 1 give no verdict, even with no minimum effect.
        SequentialOptions o;
        o.minEffect = 0;
        SequentialTest test(o);
        for (int i = 0; i < o.maxPairs; ++i)
            test.addLogRatio(1e-16);
        QCOMPARE(test.pNotFaster(), 1.0);
        QCOMPARE(test.verdict(), SequentialVerdict::Inconclusive);
        // ... while equal ratios well away from 1 (a coarse timer, a real 2x) are.
        SequentialTest coarse(o);
        for (int i = 0; i < 4; ++i)
            coarse.addPair(2.0, 1.0);
        QCOMPARE(coarse.verdict(), SequentialVerdict::Faster);
    }

    void clearSpeedupStopsAtTheMinimumPairs()
    {
        std::mt19937_64 rng(1);
        SequentialOptions o; // minPairs 4
        std::normal_distribution<double> noise(0, 0.003);
        SequentialTest test(o);
        for (int i = 1; i <= o.maxPairs; ++i) {
            test.addPair(0.035 * std::exp(noise(rng)), 0.0175 * std::exp(noise(rng)));
            if (i < o.minPairs)
                QCOMPARE(test.verdict(), SequentialVerdict::Continue);
            else
                break;
        }
        QCOMPARE(test.pairs(), o.minPairs);
        QCOMPARE(test.verdict(), SequentialVerdict::Faster);
        QVERIFY(std::fabs(test.speedup() - 2) < 0.01);
        const Interval ci = test.speedupConfidence();
        QVERIFY2(ci.low > 1.9 && ci.high < 2.1, qPrintable(test.reason(test.verdict())));
        QVERIFY(test.reason(SequentialVerdict::Faster).contains(QStringLiteral("faster")));
    }

    void clearSlowdownStopsSlower()
    {
        std::mt19937_64 rng(2);
        const SequentialTest test = feed(rng, 1 / 1.10, 5);
        QCOMPARE(test.verdict(), SequentialVerdict::Slower);
    }

    void identicalTimesAreNeverFasterOrSlower()
    {
        std::mt19937_64 rng(3);
        std::lognormal_distribution<double> time(-3.35, 0.05);
        SequentialOptions o;
        SequentialTest test(o);
        bool sawEquivalent = false;
        for (int i = 0; i < o.maxPairs; ++i) {
            const double t = time(rng);
            test.addPair(t, t);
            const SequentialVerdict v = test.verdict();
            QVERIFY(v != SequentialVerdict::Faster && v != SequentialVerdict::Slower);
            sawEquivalent |= v == SequentialVerdict::Equivalent;
        }
        QVERIFY(sawEquivalent);
        QCOMPARE(test.pNotFaster(), 1.0);
        QCOMPARE(test.pNotSlower(), 1.0);

        // With no minimum effect there is no band to be equivalent in: inconclusive at the cap.
        o.minEffect = 0;
        SequentialTest strict(o);
        for (int i = 0; i < o.maxPairs; ++i) {
            const double t = time(rng);
            strict.addPair(t, t);
            QVERIFY(strict.verdict() == SequentialVerdict::Continue || i + 1 == o.maxPairs);
        }
        QCOMPARE(strict.verdict(), SequentialVerdict::Inconclusive);
    }

    void equalScriptsStopEquivalent()
    {
        std::mt19937_64 rng(4);
        SequentialTest test;
        std::normal_distribution<double> noise(0, 0.003);
        while (test.verdict() == SequentialVerdict::Continue)
            test.addPair(0.035 * std::exp(noise(rng)), 0.035 * std::exp(noise(rng)));
        QCOMPARE(test.verdict(), SequentialVerdict::Equivalent);
        QVERIFY2(test.pairs() <= 12, qPrintable(QString::number(test.pairs())));
        const Interval ci = test.speedupConfidence();
        QVERIFY(ci.low > 1 / 1.01 && ci.high < 1.01);
    }

    void invariantToTheScaleOfTimes()
    {
        for (quint64 seed : {11u, 12u, 13u}) {
            for (double speedup : {1.0, 1.012, 0.97}) {
                std::mt19937_64 a(seed);
                std::mt19937_64 b(seed);
                std::mt19937_64 c(seed);
                const SequentialTest ms = feed(a, speedup, 12);
                const SequentialTest us = feed(b, speedup, 12, {}, 1000.0);
                const SequentialTest s = feed(c, speedup, 12, {}, 1e-3);
                QCOMPARE(us.verdict(), ms.verdict());
                QCOMPARE(s.verdict(), ms.verdict());
                QVERIFY(std::fabs(us.pNotFaster() - ms.pNotFaster()) <=
                        1e-9 * std::max(1e-300, ms.pNotFaster()) + 1e-15);
                QVERIFY(std::fabs(s.pNotSlower() - ms.pNotSlower()) <=
                        1e-9 * std::max(1e-300, ms.pNotSlower()) + 1e-15);
            }
        }
    }

    void swappingTheScriptsSwapsTheVerdict()
    {
        std::mt19937_64 rng(5);
        std::normal_distribution<double> noise(0, 0.003);
        SequentialTest forward;
        SequentialTest backward;
        for (int i = 0; i < 6; ++i) {
            const double b = 0.035 * std::exp(noise(rng));
            const double c = 0.034 * std::exp(noise(rng));
            forward.addPair(b, c);
            backward.addPair(c, b);
            QCOMPARE(forward.pNotFaster(), backward.pNotSlower());
        }
        QCOMPARE(forward.verdict(), SequentialVerdict::Faster);
        QCOMPARE(backward.verdict(), SequentialVerdict::Slower);
    }

    void pValuesOnlyFall()
    {
        std::mt19937_64 rng(6);
        std::normal_distribution<double> noise(0, 0.01);
        SequentialTest test;
        double previous = 1;
        for (int i = 0; i < 30; ++i) {
            test.addLogRatio(0.004 + noise(rng));
            QVERIFY(test.pNotFaster() <= previous);
            previous = test.pNotFaster();
        }
    }

    void refusesTimesThatAreNotTimes()
    {
        SequentialTest test;
        QVERIFY(!test.addPair(0, 1));
        QVERIFY(!test.addPair(1, -1));
        QVERIFY(!test.addPair(std::nan(""), 1));
        QVERIFY(!test.addPair(1, std::numeric_limits<double>::infinity()));
        QCOMPARE(test.pairs(), 0);
        QVERIFY(test.addPair(1, 1));
        QCOMPARE(test.pairs(), 1);
    }

    void hopelessNoiseStopsEarly()
    {
        // 3% noise per run cannot show +-1% equivalence, nor a difference, in 30 pairs: stop early.
        std::mt19937_64 rng(10);
        std::normal_distribution<double> noisy(0, 0.03);
        SequentialTest equal;
        while (equal.verdict() == SequentialVerdict::Continue)
            equal.addPair(0.035 * std::exp(noisy(rng)), 0.035 * std::exp(noisy(rng)));
        QCOMPARE(equal.verdict(), SequentialVerdict::Inconclusive);
        QVERIFY2(equal.pairs() < SequentialOptions().maxPairs, qPrintable(equal.reason(equal.verdict())));
        QVERIFY(equal.futile());
        QVERIFY(equal.reason(SequentialVerdict::Inconclusive).contains(QStringLiteral("could come")));
        // ... but a 15% speedup under the same noise is worth the pairs.
        SequentialTest faster;
        while (faster.verdict() == SequentialVerdict::Continue)
            faster.addPair(0.035 * std::exp(noisy(rng)), 0.035 / 1.15 * std::exp(noisy(rng)));
        QCOMPARE(faster.verdict(), SequentialVerdict::Faster);
    }

    void smallRealGainIsNotCalledFaster()
    {
        // 0.5% faster, well measured: real, but under the 1% minimum effect. Never "faster".
        std::mt19937_64 rng(8);
        std::normal_distribution<double> noise(0, 0.001);
        SequentialTest test;
        while (test.verdict() == SequentialVerdict::Continue)
            test.addPair(0.035 * std::exp(noise(rng)), 0.035 / 1.005 * std::exp(noise(rng)));
        QVERIFY(test.pNotFaster() < 0.005);
        QCOMPARE(test.verdict(), SequentialVerdict::Equivalent);
    }
};

QTEST_GUILESS_MAIN(TestSequentialTest)
#include "tst_sequentialtest.moc"
