// SPDX-License-Identifier: Apache-2.0
#include "measure/sweepfamily.h"
#include "sweepsim.h" // bench/: the simulated card and the sweep's order

#include <QTest>

#include <cmath>
#include <random>

using namespace hotkernel;

namespace {

struct Stop
{
    SequentialVerdict verdict = SequentialVerdict::Continue;
    int pairs = 0;
};

// Candidate 0 gets the same pairs whatever the family's size; the others are equal to the
// baseline. Pairs go round-robin until candidate 0 stops.
Stop firstCandidateStop(int familySize, quint64 seed, double speedup, double noise)
{
    std::mt19937_64 first(seed);
    std::mt19937_64 others(seed + 1000);
    // One distribution per engine: a normal distribution keeps a spare draw between calls.
    std::normal_distribution<double> n(0, noise);
    std::normal_distribution<double> m(0, noise);
    SweepFamily family(familySize);
    while (family.active(0)) {
        for (int i = 0; i < familySize; ++i) {
            if (i == 0)
                family.addLogRatio(0, std::log(speedup) + n(first));
            else
                family.addLogRatio(i, m(others)); // refused once stopped: fine
        }
    }
    return {family.verdict(0), family.test(0).pairs()};
}

} // namespace

class TestSweepFamily : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void holmStepsDown()
    {
        // Sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop; 0.04 is not reached.
        const std::vector<bool> r = SweepFamily::holm({0.01, 0.04, 0.03, 0.005}, 0.05);
        QCOMPARE(r, (std::vector<bool>{true, false, false, true}));
        // Bonferroni would reject only 0.005; the step-down's second threshold is looser.
        QCOMPARE(SweepFamily::holm({0.012, 0.024}, 0.05), (std::vector<bool>{true, true}));
        QCOMPARE(SweepFamily::holm({0.026, 0.027}, 0.05), (std::vector<bool>{false, false}));
        QCOMPARE(SweepFamily::holm({}, 0.05), std::vector<bool>{});
    }

    // A family of one is the single verify: the same verdict after every pair.
    void familyOfOneIsOneVerify()
    {
        for (quint64 seed = 1; seed <= 60; ++seed) {
            std::mt19937_64 rng(seed);
            std::normal_distribution<double> n(0, 0.004);
            const double lnSpeedup = std::log(std::vector<double>{1.0, 1.02, 1 / 1.03, 1.1}[seed % 4]);
            SweepFamily family(1);
            SequentialTest single;
            while (family.active(0)) {
                const double d = lnSpeedup + n(rng);
                QCOMPARE(family.addLogRatio(0, d), single.addLogRatio(d));
                QCOMPARE(family.verdict(0), single.verdict());
            }
        }
    }

    // Eight candidates pay for their number: candidate 0's identical pairs never decide sooner in
    // a family of 8 than alone, and in some runs decide later.
    void eightAreStricterThanOne()
    {
        int later = 0;
        for (quint64 seed = 1; seed <= 40; ++seed) {
            const Stop one = firstCandidateStop(1, seed, 1.02, 0.006);
            const Stop eight = firstCandidateStop(8, seed, 1.02, 0.006);
            if (eight.verdict == SequentialVerdict::Faster) {
                QCOMPARE(one.verdict, SequentialVerdict::Faster);
                QVERIFY2(one.pairs <= eight.pairs, qPrintable(QStringLiteral("seed %1").arg(seed)));
            }
            later += eight.pairs > one.pairs;
        }
        QVERIFY2(later >= 10, qPrintable(QString::number(later)));
    }

    // Holm's step-down, not Bonferroni's: once candidate 0 is decided faster, candidate 1 is judged
    // against alpha / 3 instead of alpha / 4. Pairs whose p lies between the two show it.
    void aDecisionFreesAlphaForTheOthers()
    {
        const double alpha = SequentialOptions().alpha;
        for (quint64 seed = 1; seed <= 500; ++seed) {
            std::mt19937_64 rng(seed);
            std::normal_distribution<double> n(0.02, 0.006);
            std::vector<double> pairs;
            SequentialTest probe;
            while (pairs.size() < 30) {
                pairs.push_back(n(rng));
                probe.addLogRatio(pairs.back());
                if (probe.pNotFaster() <= alpha / 4)
                    break; // Bonferroni would decide too: not the case sought
                if (probe.pairs() >= 4 && probe.meanLogRatio() >= std::log1p(0.01) &&
                    probe.pNotFaster() <= alpha / 3) {
                    SweepFamily decided(2);
                    SweepFamily undecided(2);
                    for (int i = 0; i < 4; ++i) {
                        decided.addLogRatio(0, std::log(2.0) + 0.001 * i);  // 2x faster: decided at once
                        undecided.addLogRatio(0, 0.001 * (i % 2 ? 1 : -1)); // equal: no rejection
                    }
                    QCOMPARE(decided.verdict(0), SequentialVerdict::Faster);
                    QVERIFY(undecided.test(0).pNotFaster() > alpha && undecided.test(0).pNotSlower() > alpha);
                    for (double d : pairs) {
                        decided.addLogRatio(1, d);
                        undecided.addLogRatio(1, d);
                    }
                    QCOMPARE(decided.verdict(1), SequentialVerdict::Faster);
                    QCOMPARE(undecided.verdict(1), SequentialVerdict::Continue);
                    return;
                }
            }
        }
        QFAIL("no pairs with alpha / 4 < p <= alpha / 3 in 500 seeds");
    }

    void stoppedCandidatesTakeNoPairs()
    {
        SweepFamily family(2);
        QCOMPARE(family.addPair(2, 1, 1), false);
        QCOMPARE(family.addPair(-1, 1, 1), false);
        QCOMPARE(family.addPair(0, 1, 0), false);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(family.addPair(0, 2.0 * (1 + 0.001 * i), 1.0), true);
        QCOMPARE(family.verdict(0), SequentialVerdict::Faster);
        QCOMPARE(family.addPair(0, 2.0, 1.0), false);
        QCOMPARE(family.test(0).pairs(), 4);
        QCOMPARE(family.activeCandidates(), std::vector<int>{1});
        QVERIFY(!family.finished());
    }

    // 2,000 simulated sweeps of four candidates equal to the baseline, with the H200's spread, the
    // card's drift, heavy tails and hiccups, in the sweep's shared-baseline order, and no minimum
    // effect (the test alone decides): a false "faster" or "slower" in at most alpha of the sweeps,
    // plus three binomial standard errors.
    void familyErrorHoldsInSimulatedSweeps()
    {
        std::mt19937_64 rng(43);
        SweepSim::NoiseModel noise;
        noise.outlierRate = 0.01;
        noise.outlierMax = 0.3;
        SequentialOptions o;
        o.minEffect = 0;
        const std::vector<double> equal(4, 1.0);
        const int sweeps = 2000;
        int wrong = 0;
        int pairs = 0;
        for (int s = 0; s < sweeps; ++s) {
            const SweepSim::Outcome out = SweepSim::sequentialSweep(rng, equal, noise, o);
            bool any = false;
            for (size_t i = 0; i < equal.size(); ++i) {
                any |=
                    out.verdicts[i] == QLatin1String("faster") || out.verdicts[i] == QLatin1String("slower");
                pairs += out.pairs[i];
            }
            wrong += any;
        }
        const double bound = o.alpha + 3 * std::sqrt(o.alpha * (1 - o.alpha) / sweeps);
        QVERIFY2(wrong <= bound * sweeps,
                 qPrintable(QStringLiteral("%1 of %2 sweeps").arg(wrong).arg(sweeps)));
        // Without a minimum effect nothing equal can stop as equivalent: only the cap, futility or a
        // (rare) false verdict end a candidate, so the pairs are many.
        QVERIFY2(pairs >= sweeps * 4 * 12, qPrintable(QString::number(pairs)));
        qInfo("%d of %d sweeps with a false faster or slower", wrong, sweeps);
    }

    // The same harness catches what the sequential test prevents: a fixed-level paired t-test
    // looked at after every pair, four candidates, no correction, errs far above alpha.
    void peekingAtAFixedTestBreaksTheLevel()
    {
        std::mt19937_64 rng(44);
        std::normal_distribution<double> n(0, 0.003);
        const int sweeps = 2000;
        std::vector<double> critical(31, 0);
        for (int k = 2; k <= 30; ++k)
            critical[size_t(k)] = Statistics::studentTQuantile(0.995, k - 1);
        int wrong = 0;
        for (int s = 0; s < sweeps; ++s) {
            bool any = false;
            for (int c = 0; c < 4 && !any; ++c) {
                double sum = 0;
                double sumSq = 0;
                for (int k = 1; k <= 30 && !any; ++k) {
                    const double d = n(rng);
                    sum += d;
                    sumSq += d * d;
                    if (k < 4)
                        continue;
                    const double mean = sum / k;
                    const double sd = std::sqrt((sumSq - k * mean * mean) / (k - 1));
                    any = std::fabs(mean) * std::sqrt(double(k)) / sd > critical[size_t(k)];
                }
            }
            wrong += any;
        }
        QVERIFY2(wrong > 0.05 * sweeps, qPrintable(QStringLiteral("%1 of %2").arg(wrong).arg(sweeps)));
    }
};

QTEST_GUILESS_MAIN(TestSweepFamily)
#include "tst_sweepfamily.moc"
