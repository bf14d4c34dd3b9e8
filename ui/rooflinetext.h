// SPDX-License-Identifier: Apache-2.0
// What the roofline says about a point in words: the roof above it (the lower of the highest
// compute roof and the highest bandwidth roof at its intensity), the hover callout's lines and the
// selected point's line above the plot. Pure: core data in, text out; any thread.
#pragma once

#include "inspect/rooflinemodel.h"

namespace hotkernel::RooflineText {

struct RoofAbove
{
    double value = 0;
    QString label; // empty: no roof
};
RoofAbove roofAbove(const RooflineData &data, const RooflinePoint &point);

// "1.06 TFLOP/s", "950 GFLOP/s", "12 FLOP/s".
QString flopsText(double flopsPerSecond);
// The callout: name and kind, FLOP/B, FLOP/s, GB/s and the share of the roof above, a line each.
QString describe(const RooflineData &data, const RooflinePoint &point);
// The callout in two lines, for a plot too short for describe()'s five.
QString describeShort(const RooflineData &data, const RooflinePoint &point);
// The selected point's numbers in one line of rich text.
QString selected(const RooflineData &data, const RooflinePoint &point);

} // namespace hotkernel::RooflineText
