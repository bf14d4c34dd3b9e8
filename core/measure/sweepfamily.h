// SPDX-License-Identifier: Apache-2.0
// Family control for a sweep (issue 43): K candidates, each judged by its own SequentialTest
// against one shared baseline, with the chance of any false "faster" or "slower" across the
// sweep at most the single verify's alpha. Pure value type; any thread.
#pragma once

#include "measure/sequentialtest.h"

#include <vector>

namespace hotkernel {

class SweepFamily
{
public:
    explicit SweepFamily(int candidates, const SequentialOptions &options = {});

    int size() const { return int(m_tests.size()); }
    const SequentialOptions &options() const { return m_options; }

    // One pair of candidate `candidate` (0-based) and the baseline run it was paired with. Refused
    // (false) for a candidate that has stopped, an index out of range, or a time that is not a
    // positive finite number. Every candidate's verdict may change: a rejection frees alpha for
    // the others.
    bool addPair(int candidate, double baselineTime, double candidateTime);
    bool addLogRatio(int candidate, double logRatio);

    const SequentialTest &test(int candidate) const { return m_tests.at(size_t(candidate)); }
    // Continue while the candidate still needs pairs; any other verdict is final.
    SequentialVerdict verdict(int candidate) const { return m_verdicts.at(size_t(candidate)); }
    bool active(int candidate) const { return verdict(candidate) == SequentialVerdict::Continue; }
    std::vector<int> activeCandidates() const;
    bool finished() const { return activeCandidates().empty(); }

    // Holm's step-down at level alpha over p-values of any dependence: which are rejected.
    static std::vector<bool> holm(const std::vector<double> &pValues, double alpha);

private:
    void update();

    SequentialOptions m_options;
    std::vector<SequentialTest> m_tests;
    std::vector<SequentialVerdict> m_verdicts;
};

} // namespace hotkernel
