// SPDX-License-Identifier: Apache-2.0
// The roofline plot's scale: where each roof starts and stops (it meets the highest roof of the
// other kind) and axis ranges that hold every point and roof. Pure math on core data; any thread.
#pragma once

#include "inspect/rooflinemodel.h"

#include <QLineF>

namespace hotkernel::RooflineScale {

// data without the ceilings and points a log-log plot cannot hold (a value <= 0 or not finite:
// Qt Charts blanks the whole series), each one left out named in rejected when given.
RooflineData plottable(const RooflineData &data, QStringList *rejected);

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

// A ceiling's line in chart values: a compute roof from where it meets the highest bandwidth roof
// to the right edge, a bandwidth roof from the left edge to where it meets the highest compute roof.
QLineF ceilingLine(const RooflineCeiling &ceiling, const Roofs &roofs, const Ranges &ranges);

} // namespace hotkernel::RooflineScale
