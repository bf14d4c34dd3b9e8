// SPDX-License-Identifier: Apache-2.0
// The first kernel of a result's kernel list (profile, top_kernels, torch_trace list the kernels by
// time, longest first): what a feed says about such a run. Read only: the lists are written by the
// report parsers (KernelTable), whole, and no front-end needs more of them than this. Any thread.
#pragma once

#include "base/json.h"

#include <QString>

#include <optional>

namespace hotkernel {

struct LeadingKernel
{
    QString name;                // as the report names it (demangled, arguments and all)
    std::optional<double> share; // of the listed kernels' time, 0..1, where the report gives it

    // nullopt when json has no kernel list or the list is empty.
    static std::optional<LeadingKernel> fromJson(const Json &json);
};

} // namespace hotkernel
