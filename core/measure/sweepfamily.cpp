// SPDX-License-Identifier: Apache-2.0
#include "measure/sweepfamily.h"

#include <algorithm>
#include <numeric>

namespace hotkernel {

SweepFamily::SweepFamily(int candidates, const SequentialOptions &options)
    : m_options(options), m_tests(size_t(std::max(0, candidates)), SequentialTest(options)),
      m_verdicts(size_t(std::max(0, candidates)), SequentialVerdict::Continue)
{}

bool SweepFamily::addPair(int candidate, double baselineTime, double candidateTime)
{
    if (candidate < 0 || candidate >= size() || !active(candidate))
        return false;
    if (!m_tests[size_t(candidate)].addPair(baselineTime, candidateTime))
        return false;
    update();
    return true;
}

bool SweepFamily::addLogRatio(int candidate, double logRatio)
{
    if (candidate < 0 || candidate >= size() || !active(candidate))
        return false;
    if (!m_tests[size_t(candidate)].addLogRatio(logRatio))
        return false;
    update();
    return true;
}

std::vector<int> SweepFamily::activeCandidates() const
{
    std::vector<int> out;
    for (int i = 0; i < size(); ++i)
        if (active(i))
            out.push_back(i);
    return out;
}

std::vector<bool> SweepFamily::holm(const std::vector<double> &pValues, double alpha)
{
    const size_t m = pValues.size();
    std::vector<size_t> order(m);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return pValues[a] < pValues[b]; });
    std::vector<bool> rejected(m, false);
    for (size_t step = 0; step < m; ++step) {
        if (!(pValues[order[step]] <= alpha / double(m - step)))
            break;
        rejected[order[step]] = true;
    }
    return rejected;
}

void SweepFamily::update()
{
    // 2K one-sided nulls: "candidate i is not faster" and "candidate i is not slower". Every p is
    // always-valid and only falls as pairs come, and Holm's rejections only grow as p-values
    // fall, so a rejection made at any pair is also one of Holm's at the sweep's end: the family
    // error is Holm's, at most alpha, whatever the baseline's sharing does to the dependence.
    std::vector<double> p;
    p.reserve(2 * m_tests.size());
    for (const SequentialTest &t : m_tests) {
        p.push_back(t.pNotFaster());
        p.push_back(t.pNotSlower());
    }
    const std::vector<bool> rejected = holm(p, m_options.alpha);
    // "Equivalent" is a stopping decision per candidate, not a claim the family must guard: each
    // candidate's two one-sided tests at alpha / 2, as one verify would (docs/verify-result.md).
    const double equivalentLevel = m_options.alpha / 2;
    for (size_t i = 0; i < m_tests.size(); ++i) {
        if (m_verdicts[i] != SequentialVerdict::Continue)
            continue;
        const SequentialTest &t = m_tests[i];
        m_verdicts[i] =
            t.verdict(rejected[2 * i], rejected[2 * i + 1], t.pNotEquivalent() <= equivalentLevel);
    }
}

} // namespace hotkernel
