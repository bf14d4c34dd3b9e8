// SPDX-License-Identifier: Apache-2.0
// Roofline data for one card: ceilings from the spec sheet and from calibrate, and points
// (kernels, verify results). Plain values the chart view draws; no Qt Charts here.
#pragma once

#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <vector>

namespace hotkernel {

struct RooflineCeiling
{
    QString label;    // "HBM3e 4.8 TB/s (spec)", "bf16 tensor 989 TFLOP/s (spec)"
    QString kind;     // "bandwidth" or "compute"
    QString origin;   // "spec" or "measured"
    double value = 0; // bytes/s for bandwidth, FLOP/s for compute
};

struct RooflinePoint
{
    QString label;             // kernel or verify result name
    QString kind;              // "kernel", "baseline", "candidate"
    double intensity = 0;      // FLOP per byte (> 0)
    double flopsPerSecond = 0; // achieved (> 0)
    QString key;               // links the point to a kernel-table row or a result
};

struct RooflineData
{
    QString card;
    QString dtype;
    std::vector<RooflineCeiling> ceilings;
    std::vector<RooflinePoint> points;
    QStringList notes; // what has no point and why, one line per reason ("3 kernels: ...")
};

} // namespace hotkernel
