// SPDX-License-Identifier: Apache-2.0
// The roofline tool's result as a value: the query it answered, the estimate, where the card came
// from and the chart's ceilings. toJson() is the tool's structured content (its one writer) and
// fromJson() reads it back. Plain values; any thread.
#pragma once

#include "base/json.h"
#include "inspect/roofline.h"
#include "inspect/rooflinemodel.h"

#include <optional>
#include <vector>

namespace hotkernel {

struct RooflineResult
{
    RooflineQuery query;
    RooflineEstimate estimate;
    QString cardOrigin; // "probed" (the GPU here) or "argument"
    std::vector<RooflineCeiling> ceilings;

    // FLOP per byte of the call; none for the ridge point alone.
    std::optional<double> intensity() const;
    // With a measured time only.
    std::optional<double> achievedFlopsPerSecond() const;

    Json toJson() const;
    // nullopt when json is not a roofline result (no card or no spec ceilings).
    static std::optional<RooflineResult> fromJson(const Json &json);
};

} // namespace hotkernel
