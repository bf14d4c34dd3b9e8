// SPDX-License-Identifier: Apache-2.0
// Roofline arithmetic for one kernel call on one card: ridge point, memory/compute verdict,
// attainable time from the spec sheet and from measured ceilings, achieved figures. Pure
// functions over plain values; callable from any thread.
#pragma once

#include "base/json.h"
#include "inspect/cardtable.h"
#include "inspect/kernelstat.h"
#include "inspect/rooflinemodel.h"

#include <QString>

#include <map>
#include <optional>

namespace hotkernel {

// This card's ceilings as hotkernel-calibrate measured them.
struct MeasuredCeilings
{
    std::optional<double> bandwidthBytesPerSecond; // device copy, bytes read + written per second
    QString bandwidthMethod;
    std::map<QString, double> peakFlopsPerSecond; // by dtype (bf16, fp16)
    QString origin;                               // the file they were read from
    QString measuredAt;                           // ISO time
    QString uuid;
    QString card; // the card name the calibration ran on
};

struct RooflineQuery
{
    CardSpec card;
    QString dtype;                    // fp32, tf32, bf16, fp16, fp8
    double flops = 0;                 // per call; 0 for pure data movement
    double bytes = 0;                 // per call: bytes that must move to and from DRAM (> 0)
    bool ridgeOnly = false;           // no kernel: only the ceilings and the ridge point
    std::optional<double> measuredMs; // per call, when the caller timed it
    std::optional<MeasuredCeilings> measured;
    QString label; // the kernel or target name, for the chart point
};

struct RooflineCeilingsUsed
{
    double peakFlopsPerSecond = 0;
    double bandwidthBytesPerSecond = 0;
    double ridge = 0;          // FLOP per byte where the two roofs meet
    QString bound;             // "memory" or "compute"; empty when ridgeOnly
    double computeMs = 0;      // flops / peak
    double memoryMs = 0;       // bytes / bandwidth
    double attainableMs = 0;   // max of the two: the floor this card allows
    bool peakFromSpec = false; // measured ceilings without a measured peak for the dtype
};

struct RooflineEstimate
{
    double intensity = 0; // FLOP per byte
    RooflineCeilingsUsed spec;
    std::optional<RooflineCeilingsUsed> measured;
    // Only with measuredMs:
    std::optional<double> achievedFlopsPerSecond;
    std::optional<double> achievedBytesPerSecond;
    std::optional<double> specFloorFraction;     // spec attainable ms / measured ms (1 = at the roof)
    std::optional<double> measuredFloorFraction; // measured attainable ms / measured ms
};

class Roofline
{
public:
    // Throws UserError for an unknown dtype, a card without a figure for it, bytes <= 0,
    // flops < 0 or a measured time <= 0 (unless ridgeOnly); the message says what to pass instead.
    static RooflineEstimate estimate(const RooflineQuery &query);
    // Ceilings and the kernel's point (when flops > 0 and a time was given) for the chart view.
    static RooflineData chartData(const RooflineQuery &query, const RooflineEstimate &estimate);
    // A "kernel" point (key: the kernel name) per kernel of the report that measured its FLOPs,
    // DRAM bytes and time: intensity flops / dramBytes, achieved flops / average time. Every other
    // kernel gets no point (no number is made up) and a line in data.notes counts them by reason.
    // Returns the number of points added. kind: "kernel", or in a comparison "baseline" (the
    // before report's kernels, removed ones included) and "candidate" (the after report's).
    static int addKernelPoints(RooflineData &data, const KernelTable &table,
                               const QString &kind = QStringLiteral("kernel"));
    static QString toText(const RooflineQuery &query, const RooflineEstimate &estimate);
};

} // namespace hotkernel
