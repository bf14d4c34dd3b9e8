// SPDX-License-Identifier: Apache-2.0
#include "sweepsim.h"

#include "measure/sweepfamily.h"

#include <algorithm>
#include <cmath>

namespace hotkernel::SweepSim {

namespace {

// The card: every run's time depends on when it ran (drift) and on its own luck.
class Card
{
public:
    Card(std::mt19937_64 &rng, const NoiseModel &noise) : m_rng(rng), m_noise(noise)
    {
        m_phase = std::uniform_real_distribution<double>(0, 2 * M_PI)(rng);
    }

    // One timed run of a script whose true time is exp(lnTime), with spread sigma * spreadScale.
    double run(double lnTime, double spreadScale)
    {
        const double drift =
            m_noise.driftAmplitude * std::sin(2 * M_PI * m_clock / m_noise.driftPeriodRuns + m_phase) +
            m_walk;
        m_walk += std::normal_distribution<double>(0, m_noise.walkStep)(m_rng);
        ++m_clock;
        double eps = std::student_t_distribution<double>(m_noise.tailDf)(m_rng);
        if (m_noise.tailDf > 2)
            eps *= std::sqrt((m_noise.tailDf - 2) / m_noise.tailDf); // unit variance
        double lnRun = lnTime + drift + m_noise.sigma * spreadScale * eps;
        if (std::uniform_real_distribution<double>(0, 1)(m_rng) < m_noise.outlierRate)
            lnRun += std::log1p(std::uniform_real_distribution<double>(0, m_noise.outlierMax)(m_rng));
        return std::exp(lnRun);
    }
    int runs() const { return m_clock; }

private:
    std::mt19937_64 &m_rng;
    NoiseModel m_noise;
    double m_phase = 0;
    double m_walk = 0;
    int m_clock = 0;
};

constexpr double kLnBaseline = -3.35; // ~35 us in ms; only ratios matter

std::vector<double> spreads(std::mt19937_64 &rng, const NoiseModel &noise, size_t k)
{
    std::uniform_real_distribution<double> u(noise.candidateSpreadMin, noise.candidateSpreadMax);
    std::vector<double> out(k);
    for (double &s : out)
        s = u(rng);
    return out;
}

} // namespace

Outcome sequentialSweep(std::mt19937_64 &rng, const std::vector<double> &speedups, const NoiseModel &noise,
                        const SequentialOptions &options)
{
    const int k = int(speedups.size());
    Card card(rng, noise);
    const std::vector<double> spread = spreads(rng, noise, speedups.size());
    auto candidateRun = [&](int i) {
        return card.run(kLnBaseline - std::log(speedups[size_t(i)]), spread[size_t(i)]);
    };
    SweepFamily family(k, options);
    while (!family.finished()) {
        std::vector<int> order = family.activeCandidates();
        std::shuffle(order.begin(), order.end(), rng);
        for (size_t g = 0; g < order.size(); g += 2) {
            // Candidates stopped earlier in this round (a rejection frees alpha) take no more runs.
            std::vector<int> group;
            for (size_t j = g; j < std::min(order.size(), g + 2); ++j)
                if (family.active(order[j]))
                    group.push_back(order[j]);
            if (group.size() == 2) {
                const double first = candidateRun(group[0]);
                const double b = card.run(kLnBaseline, 1.0);
                const double second = candidateRun(group[1]);
                family.addPair(group[0], b, first);
                family.addPair(group[1], b, second);
            } else if (group.size() == 1) {
                const int i = group[0];
                const bool baselineFirst = family.test(i).pairs() % 2 == 0;
                double b = 0;
                double c = 0;
                if (baselineFirst) {
                    b = card.run(kLnBaseline, 1.0);
                    c = candidateRun(i);
                } else {
                    c = candidateRun(i);
                    b = card.run(kLnBaseline, 1.0);
                }
                family.addPair(i, b, c);
            }
        }
    }
    Outcome out;
    for (int i = 0; i < k; ++i) {
        out.verdicts.push_back(SequentialStatistics::verdictName(family.verdict(i)));
        out.pairs.push_back(family.test(i).pairs());
    }
    out.runs = card.runs();
    return out;
}

Outcome fixedVerifies(std::mt19937_64 &rng, const std::vector<double> &speedups, const NoiseModel &noise,
                      int n, const ComparisonOptions &options)
{
    Card card(rng, noise);
    const std::vector<double> spread = spreads(rng, noise, speedups.size());
    Outcome out;
    for (size_t i = 0; i < speedups.size(); ++i) {
        std::vector<double> b;
        std::vector<double> c;
        const double lnC = kLnBaseline - std::log(speedups[i]);
        for (int p = 0; p < n; ++p) {
            if (p % 2 == 0) {
                b.push_back(card.run(kLnBaseline, 1.0));
                c.push_back(card.run(lnC, spread[i]));
            } else {
                c.push_back(card.run(lnC, spread[i]));
                b.push_back(card.run(kLnBaseline, 1.0));
            }
        }
        out.verdicts.push_back(Statistics::compare(b, c, options).verdict);
        out.pairs.push_back(n);
    }
    out.runs = card.runs();
    return out;
}

} // namespace hotkernel::SweepSim
