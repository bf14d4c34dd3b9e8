// SPDX-License-Identifier: Apache-2.0
#include "measure/statistics.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace hotkernel;

namespace {

// The H200's measured run-to-run spread: under 0.3% of a ~35 us kernel (docs/contract.md).
constexpr double kMeanMs = 0.035;
constexpr double kNoise = 0.003;

std::vector<double> draw(std::mt19937_64 &rng, double mean, double relativeStd, int n)
{
    std::normal_distribution<double> normal(mean, mean * relativeStd);
    std::vector<double> v(size_t(n), 0.0);
    for (double &x : v)
        x = normal(rng);
    return v;
}

// One verify as the tool runs it: pairs until the adaptive rule stops (or exactly n when fixedN > 0).
Comparison simulate(std::mt19937_64 &rng, double meanB, double meanC, double noise,
                    const ComparisonOptions &options, int fixedN = 0, const AdaptiveOptions &adaptive = {})
{
    std::vector<double> b;
    std::vector<double> c;
    std::normal_distribution<double> nb(meanB, meanB * noise);
    std::normal_distribution<double> nc(meanC, meanC * noise);
    while (true) {
        b.push_back(nb(rng));
        c.push_back(nc(rng));
        const int pairs = int(b.size());
        if (fixedN > 0) {
            if (pairs < fixedN)
                continue;
            return Statistics::compare(b, c, options);
        }
        if (pairs < adaptive.minPairs)
            continue;
        Comparison result = Statistics::compare(b, c, options);
        if (!Statistics::needsMorePairs(result, pairs, 0, adaptive))
            return result;
    }
}

} // namespace

class TestStatistics : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void describe()
    {
        const SampleStats s = Statistics::describe({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0});
        QCOMPARE(s.n, 8);
        QCOMPARE(s.mean, 5.0);
        QCOMPARE(s.min, 2.0);
        QVERIFY(std::fabs(s.std - std::sqrt(32.0 / 7.0)) < 1e-12);
        QCOMPARE(Statistics::describe({3.0}).std, 0.0);
    }

    void quantiles_data()
    {
        QTest::addColumn<double>("p");
        QTest::addColumn<double>("df");
        QTest::addColumn<double>("expected");
        // Published Student-t table values (and exact forms for df 1 and 2).
        QTest::newRow("0.975,1") << 0.975 << 1.0 << 12.706204736174698;
        QTest::newRow("0.995,1") << 0.995 << 1.0 << 63.65674116287399;
        QTest::newRow("0.975,2") << 0.975 << 2.0 << 4.302652729749464;
        QTest::newRow("0.975,5") << 0.975 << 5.0 << 2.570581835636314;
        QTest::newRow("0.995,5") << 0.995 << 5.0 << 4.032142983557536;
        QTest::newRow("0.975,10") << 0.975 << 10.0 << 2.228138851986274;
        QTest::newRow("0.995,10") << 0.995 << 10.0 << 3.169272672616957;
        QTest::newRow("0.9995,10") << 0.9995 << 10.0 << 4.586893858;
        QTest::newRow("0.95,20") << 0.95 << 20.0 << 1.724718242920787;
        QTest::newRow("0.975,30") << 0.975 << 30.0 << 2.042272456301238;
        QTest::newRow("0.995,30") << 0.995 << 30.0 << 2.749995653567;
        QTest::newRow("0.025,10 (lower tail)") << 0.025 << 10.0 << -2.228138851986274;
        QTest::newRow("0.975,1e9 (normal limit)") << 0.975 << 1e9 << 1.959963984540054;
        QTest::newRow("0.5,3") << 0.5 << 3.0 << 0.0;
    }
    void quantiles()
    {
        QFETCH(double, p);
        QFETCH(double, df);
        QFETCH(double, expected);
        const double q = Statistics::studentTQuantile(p, df);
        QVERIFY2(std::fabs(q - expected) < 1e-6, qPrintable(QStringLiteral("t(%1, %2) = %3, expected %4")
                                                                .arg(p)
                                                                .arg(df)
                                                                .arg(q, 0, 'g', 12)
                                                                .arg(expected, 0, 'g', 12)));
    }

    void quantileInvertsCdf()
    {
        // Welch df is rarely an integer; df = 2 also has a closed form to check against.
        for (double df : {1.0, 1.7, 2.0, 3.3, 8.9, 57.5}) {
            for (double p : {0.0005, 0.01, 0.3, 0.7, 0.9, 0.995, 0.9995}) {
                const double q = Statistics::studentTQuantile(p, df);
                QVERIFY(std::fabs(Statistics::studentTCdf(q, df) - p) < 1e-9);
            }
        }
        for (double p : {0.6, 0.9, 0.99}) {
            const double a = 2 * p - 1;
            QVERIFY(std::fabs(Statistics::studentTQuantile(p, 2.0) - a * std::sqrt(2.0 / (1 - a * a))) <
                    1e-8);
        }
    }

    void welchDf()
    {
        // Equal n and equal variances: df = 2n - 2.
        const SampleStats a{10, 1.0, 0.1, 0.9};
        QVERIFY(std::fabs(Statistics::welchDf(a, a) - 18.0) < 1e-9);
        // Worked example: s1^2/n1 = 0.5, s2^2/n2 = 2 -> (2.5^2) / (0.25/9 + 4/4) = 6.080...
        const SampleStats x{10, 0, std::sqrt(5.0), 0};
        const SampleStats y{5, 0, std::sqrt(10.0), 0};
        QVERIFY(std::fabs(Statistics::welchDf(x, y) - 6.25 / (0.25 / 9 + 4.0 / 4)) < 1e-9);
    }

    // Issue 44: an uncontracted verify showed [-0.2350, 6.4612]. A ratio of two times is positive:
    // when the baseline's mean cannot be told from 0 at that confidence there is no interval.
    void speedupIntervalIsPositiveOrAbsent()
    {
        const std::vector<double> baseline{0.05, 3.0, 0.1};
        const std::vector<double> candidate{0.5, 0.52, 0.51};
        const Comparison r = Statistics::compare(baseline, candidate, ComparisonOptions{});
        QVERIFY(r.speedup > 0);
        QVERIFY2(!r.ci99 || r.ci99->low > 0, qPrintable(QString::number(r.ci99 ? r.ci99->low : 0)));
        QVERIFY2(!r.ci95 || r.ci95->low > 0, qPrintable(QString::number(r.ci95 ? r.ci95->low : 0)));
        QVERIFY(!r.ci99); // this baseline's spread covers 0 at 99%
    }

    void intervalAgreesWithTest()
    {
        // Fieller's interval excludes 1 exactly when Welch's test rejects: check both sides of the edge.
        std::mt19937_64 rng(7);
        int agreements = 0;
        for (int i = 0; i < 2000; ++i) {
            const auto b = draw(rng, 1.0, 0.01, 6);
            const auto c = draw(rng, 1.0 + 0.01 * (i % 5) / 2, 0.01, 6);
            ComparisonOptions o;
            o.minEffect = 0;
            const Comparison r = Statistics::compare(b, c, o);
            QVERIFY(r.ci99 && r.ci95);
            QVERIFY(r.ci99->low <= r.ci95->low && r.ci95->high <= r.ci99->high);
            QVERIFY(r.ci95->low < r.speedup && r.speedup < r.ci95->high);
            const bool excludes = r.ci99->low > 1 || r.ci99->high < 1;
            agreements += excludes == (r.pValue < 0.01) ? 1 : 0;
        }
        QCOMPARE(agreements, 2000);
    }

    void aaFalseVerdictRate()
    {
        // The default procedure: Welch, alpha 1%, min effect 1%, adaptive n.
        std::mt19937_64 rng(20261202);
        int wrong = 0;
        for (int i = 0; i < 10000; ++i)
            wrong +=
                simulate(rng, kMeanMs, kMeanMs, kNoise, {}).verdict != QLatin1String("inconclusive") ? 1 : 0;
        qInfo("default procedure, A/A: %d of 10000 gave a verdict", wrong);
        QVERIFY2(wrong <= 120,
                 qPrintable(QStringLiteral("%1 of 10000 A/A verifies gave a verdict").arg(wrong)));
    }

    void aaFalseVerdictRateWithoutMinimumEffect()
    {
        // The test alone must hold its 1% level (fixed n = 7 and adaptive on noisier timings).
        ComparisonOptions o;
        o.minEffect = 0;
        std::mt19937_64 rng(42);
        int wrong = 0;
        for (int i = 0; i < 10000; ++i)
            wrong += simulate(rng, kMeanMs, kMeanMs, kNoise, o, 7).verdict != QLatin1String("inconclusive")
                         ? 1
                         : 0;
        qInfo("welch without min effect, fixed n=7, A/A: %d of 10000", wrong);
        QVERIFY2(wrong <= 120, qPrintable(QStringLiteral("fixed n=7: %1 of 10000").arg(wrong)));
        wrong = 0;
        for (int i = 0; i < 10000; ++i)
            wrong +=
                simulate(rng, kMeanMs, kMeanMs, 0.02, o).verdict != QLatin1String("inconclusive") ? 1 : 0;
        qInfo("welch without min effect, adaptive, 2%% noise, A/A: %d of 10000", wrong);
        QVERIFY2(wrong <= 120, qPrintable(QStringLiteral("adaptive, 2% noise: %1 of 10000").arg(wrong)));
    }

    void seedRuleFalseVerdictRateIsWhatTheIssueMeasured()
    {
        // The reason for the new default: the seed's rule at n = 7 errs several times more often.
        ComparisonOptions o;
        o.rule = VerdictRule::Seed;
        o.minEffect = 0;
        std::mt19937_64 rng(3);
        int wrong = 0;
        for (int i = 0; i < 10000; ++i)
            wrong += simulate(rng, kMeanMs, kMeanMs, kNoise, o, 7).verdict != QLatin1String("inconclusive")
                         ? 1
                         : 0;
        qInfo("seed rule, n=7, A/A: %d of 10000", wrong);
        QVERIFY2(wrong > 400 && wrong < 900, qPrintable(QString::number(wrong)));
    }

    void powerAtThreePercent()
    {
        std::mt19937_64 rng(99);
        int slower = 0;
        int faster = 0;
        const int trials = 2000;
        for (int i = 0; i < trials; ++i) {
            slower +=
                simulate(rng, kMeanMs, kMeanMs * 1.03, kNoise, {}).verdict == QLatin1String("slower") ? 1 : 0;
            faster +=
                simulate(rng, kMeanMs, kMeanMs / 1.03, kNoise, {}).verdict == QLatin1String("faster") ? 1 : 0;
        }
        qInfo("power at 3%%: slower %d, faster %d of %d", slower, faster, trials);
        QVERIFY2(slower >= trials * 9 / 10, qPrintable(QString::number(slower)));
        QVERIFY2(faster >= trials * 9 / 10, qPrintable(QString::number(faster)));
        // Also at fixed n = 7 (what `-n 7` does).
        int fixedSlower = 0;
        for (int i = 0; i < trials; ++i)
            fixedSlower +=
                simulate(rng, kMeanMs, kMeanMs * 1.03, kNoise, {}, 7).verdict == QLatin1String("slower") ? 1
                                                                                                         : 0;
        QVERIFY(fixedSlower >= trials * 9 / 10);
    }

    void seedRuleBoundary()
    {
        // n = 2 per side, std 0.1414... each: the rule's threshold is 2 * sqrt(0.02) = 0.28284...
        const double threshold = 2.0 * std::sqrt(0.02);
        const std::vector<double> b{1.0, 1.2};
        ComparisonOptions o;
        o.rule = VerdictRule::Seed;
        o.minEffect = 0;
        const auto shifted = [](double gap) { return std::vector<double>{1.0 - gap, 1.2 - gap}; };
        QVERIFY(!Statistics::seedRuleSeparates(Statistics::describe(b),
                                               Statistics::describe(shifted(threshold - 1e-6))));
        QVERIFY(Statistics::seedRuleSeparates(Statistics::describe(b),
                                              Statistics::describe(shifted(threshold + 1e-6))));
        QCOMPARE(Statistics::compare(b, shifted(threshold - 1e-6), o).verdict,
                 QStringLiteral("inconclusive"));
        QCOMPARE(Statistics::compare(b, shifted(threshold + 1e-6), o).verdict, QStringLiteral("faster"));
        QCOMPARE(Statistics::compare(b, shifted(-threshold - 1e-6), o).verdict, QStringLiteral("slower"));
        QCOMPARE(Statistics::compare(b, shifted(-threshold + 1e-6), o).verdict,
                 QStringLiteral("inconclusive"));
    }

    void minimumEffect()
    {
        // A clear but tiny difference (0.5% at 0.01% noise) is inconclusive under the 1% minimum.
        std::mt19937_64 rng(5);
        const auto b = draw(rng, 1.0, 0.0001, 10);
        const auto c = draw(rng, 1.0 / 1.005, 0.0001, 10);
        ComparisonOptions o;
        const Comparison r = Statistics::compare(b, c, o);
        QVERIFY(r.ci99 && r.ci99->low > 1);
        QCOMPARE(r.verdict, QStringLiteral("inconclusive"));
        QVERIFY(r.reason.contains(QStringLiteral("minimum effect")));
        o.minEffect = 0.001;
        QCOMPARE(Statistics::compare(b, c, o).verdict, QStringLiteral("faster"));
    }

    void degenerateSamples()
    {
        // One run per side: no spread, no interval, no verdict.
        const Comparison one = Statistics::compare({1.0}, {0.5});
        QCOMPARE(one.verdict, QStringLiteral("inconclusive"));
        QVERIFY(!one.ci99);
        // Identical constant timings (a wall clock's granularity): still well defined.
        const Comparison flat = Statistics::compare({1.0, 1.0, 1.0}, {0.5, 0.5, 0.5});
        QVERIFY(flat.ci99);
        QCOMPARE(flat.verdict, QStringLiteral("faster"));
        QCOMPARE(flat.speedup, 2.0);
    }

    void adaptiveStops()
    {
        AdaptiveOptions a;
        Comparison wide;
        QVERIFY(Statistics::needsMorePairs(wide, 3, 0, a));             // below the minimum
        QVERIFY(Statistics::needsMorePairs(wide, 5, 0, a));             // no interval yet
        QVERIFY(!Statistics::needsMorePairs(wide, a.maxPairs, 0, a));   // pair budget
        QVERIFY(!Statistics::needsMorePairs(wide, 6, a.maxSeconds, a)); // time budget
        Comparison narrow;
        narrow.speedup = 1.0;
        narrow.ci99 = Interval{0.995, 1.005};
        QVERIFY(!Statistics::needsMorePairs(narrow, 5, 0, a));
    }

    void rules()
    {
        QCOMPARE(Statistics::ruleFromName(QStringLiteral("seed")), std::optional(VerdictRule::Seed));
        QCOMPARE(Statistics::ruleFromName(QStringLiteral("welch")), std::optional(VerdictRule::Welch));
        QVERIFY(!Statistics::ruleFromName(QStringLiteral("bayes")));
    }
};

QTEST_GUILESS_MAIN(TestStatistics)
#include "tst_statistics.moc"
