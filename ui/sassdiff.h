// SPDX-License-Identifier: Apache-2.0
// Aligns a baseline and a candidate listing line by line for the side-by-side SASS diff. Pure.
#pragma once

#include "sassmodel.h"

namespace hotkernel {

struct SassDiff
{
    std::vector<SassModel::Row> left;  // rows over the baseline's instructions
    std::vector<SassModel::Row> right; // rows over the candidate's instructions, same length
    int changedLines = 0;

    // Lines compare by instruction text (addresses differ between any two builds). An LCS over
    // at most kMaxCells cells; beyond that the listings pair up by position.
    static SassDiff align(const SassFunction &baseline, const SassFunction &candidate);
    static constexpr qsizetype kMaxCells = 4'000'000;
};

} // namespace hotkernel
