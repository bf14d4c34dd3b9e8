// SPDX-License-Identifier: Apache-2.0
// Input properties bench and verify both take, so that the two tools describe them alike.
#pragma once

#include "base/json.h"

namespace hotkernel::MeasureSchema {

// Runs (bench) or pairs (verify) made first and dropped.
inline Json warmup(const char *description)
{
    return Json{
        {"type", "integer"}, {"minimum", 0}, {"maximum", 100}, {"default", 1}, {"description", description}};
}

inline Json timeout()
{
    return Json{{"type", "number"},
                {"exclusiveMinimum", 0},
                {"default", 300},
                {"description", "Seconds one run may take before it is killed."}};
}

inline Json fresh(const char *description)
{
    return Json{{"type", "boolean"}, {"default", false}, {"description", description}};
}

} // namespace hotkernel::MeasureSchema
