// SPDX-License-Identifier: Apache-2.0
// Which two listings Diff SASS shows: the target's baseline and candidate listings, else two
// builds of the selected kernel (the one with stall samples, the profiled build, on the right).
// Pure: plain workspace data in, pointers into it out; any thread.
#pragma once

#include "inspect/sassinstruction.h"

#include <optional>
#include <vector>

namespace hotkernel {

struct DiffPair
{
    const SassFunction *left = nullptr;
    const SassFunction *right = nullptr;
    QString leftLabel; // empty: the view names the side itself
    QString rightLabel;

    // Listings named <target>_baseline*.sass and <target>_candidate*.sass first; selected may be
    // null. Nothing when neither pair exists.
    static std::optional<DiffPair> choose(const std::vector<SassFunction> &functions, const QString &target,
                                          const SassFunction *selected);
};

} // namespace hotkernel
