// SPDX-License-Identifier: Apache-2.0
#include "rooflinescale.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hotkernel::RooflineScale {

namespace {

bool positive(double v)
{
    return std::isfinite(v) && v > 0;
}

} // namespace

RooflineData plottable(const RooflineData &data, QStringList *rejected)
{
    RooflineData out = data;
    out.ceilings.clear();
    out.points.clear();
    for (const RooflineCeiling &c : data.ceilings) {
        if (positive(c.value))
            out.ceilings.push_back(c);
        else if (rejected)
            rejected->append(QStringLiteral("ceiling %1 (%2)").arg(c.label).arg(c.value));
    }
    for (const RooflinePoint &p : data.points) {
        if (positive(p.intensity) && positive(p.flopsPerSecond))
            out.points.push_back(p);
        else if (rejected)
            rejected->append(QStringLiteral("point %1 (%2 FLOP/B, %3 FLOP/s)")
                                 .arg(p.label)
                                 .arg(p.intensity)
                                 .arg(p.flopsPerSecond));
    }
    return out;
}

Roofs roofsOf(const RooflineData &data)
{
    Roofs r;
    for (const auto &c : data.ceilings)
        (c.kind == QLatin1String("compute") ? r.compute : r.bandwidth) =
            std::max(c.kind == QLatin1String("compute") ? r.compute : r.bandwidth, c.value);
    return r;
}

// Where a bandwidth roof stops (it meets the highest compute roof) and where a compute roof starts.
double bandwidthEnd(double bandwidth, const Roofs &roofs, double xMax)
{
    return roofs.compute > 0 ? std::min(roofs.compute / bandwidth, xMax) : xMax;
}

double computeStart(double compute, const Roofs &roofs, double xMin)
{
    return roofs.bandwidth > 0 ? std::max(compute / roofs.bandwidth, xMin) : xMin;
}

Ranges fitted(const RooflineData &data)
{
    Ranges r;
    const Roofs roofs = roofsOf(data);
    double xLo = std::numeric_limits<double>::max(), xHi = 0;
    for (const auto &p : data.points) {
        xLo = std::min(xLo, p.intensity);
        xHi = std::max(xHi, p.intensity);
    }
    // The ridges: where each roof meets the highest roof of the other kind.
    for (const auto &c : data.ceilings) {
        const double ridge = c.kind == QLatin1String("compute")
                                 ? (roofs.bandwidth > 0 ? c.value / roofs.bandwidth : 0)
                                 : (roofs.compute > 0 ? roofs.compute / c.value : 0);
        if (ridge > 0) {
            xLo = std::min(xLo, ridge / 30);
            xHi = std::max(xHi, ridge * 10);
        }
    }
    if (xHi <= 0) {
        xLo = 0.01;
        xHi = 1000;
    }
    // A quarter decade of room each side, so points on the frame stay visible.
    r.xMin = std::pow(10, std::log10(xLo) - 0.25);
    r.xMax = std::pow(10, std::log10(xHi) + 0.25);

    double yLo = std::numeric_limits<double>::max(), yHi = 0;
    for (const auto &p : data.points) {
        yLo = std::min(yLo, p.flopsPerSecond);
        yHi = std::max(yHi, p.flopsPerSecond);
    }
    for (const auto &c : data.ceilings) {
        if (c.kind == QLatin1String("compute")) {
            yHi = std::max(yHi, c.value);
            yLo = std::min(yLo, c.value / 100);
        } else {
            yLo = std::min(yLo, c.value * r.xMin);
            yHi = std::max(yHi, c.value * bandwidthEnd(c.value, roofs, r.xMax));
        }
    }
    if (yHi <= 0) {
        yLo = 1e9;
        yHi = 1e15;
    }
    r.yMin = std::pow(10, std::log10(yLo) - 0.25);
    r.yMax = std::pow(10, std::log10(yHi) + 0.6); // room for the labels of the close top roofs
    return r;
}

QLineF ceilingLine(const RooflineCeiling &ceiling, const Roofs &roofs, const Ranges &ranges)
{
    if (ceiling.kind == QLatin1String("compute"))
        return QLineF(computeStart(ceiling.value, roofs, ranges.xMin), ceiling.value, ranges.xMax,
                      ceiling.value);
    const double end = bandwidthEnd(ceiling.value, roofs, ranges.xMax);
    return QLineF(ranges.xMin, ceiling.value * ranges.xMin, end, ceiling.value * end);
}

} // namespace hotkernel::RooflineScale
