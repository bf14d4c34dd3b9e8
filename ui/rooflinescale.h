// SPDX-License-Identifier: Apache-2.0
// The roofline plot's scale: where each roof starts and stops (it meets the highest roof of the
// other kind) and axis ranges that hold every point and roof. Pure math on core data; any thread.
#pragma once

#include "inspect/rooflinemodel.h"

namespace hotkernel::RooflineScale {

struct Roofs
{
    double compute = 0;   // highest
    double bandwidth = 0; // highest
};
Roofs roofsOf(const RooflineData &data);

// Where a bandwidth roof stops (it meets the highest compute roof) and where a compute roof starts.
double bandwidthEnd(double bandwidth, const Roofs &roofs, double xMax);
double computeStart(double compute, const Roofs &roofs, double xMin);

// The axes' ranges: every point and every roof up to where it meets the highest roof of the other
// kind, a little room around them, whole decades only where that costs little.
struct Ranges
{
    double xMin = 0.01, xMax = 1000, yMin = 1e9, yMax = 1e15;
};
Ranges fitted(const RooflineData &data);

} // namespace hotkernel::RooflineScale
