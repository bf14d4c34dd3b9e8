// SPDX-License-Identifier: Apache-2.0
// The roofline floor under a timed result (issue 25): the least time one call can take on this
// card for the bytes and flops the target says it does. Pure functions over plain values; callable
// from any thread.
#pragma once

#include "base/json.h"
#include "inspect/cardtable.h"
#include "inspect/roofline.h"

#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace hotkernel {

// What one call does, as the contract's result line reports it.
struct FloorWork
{
    std::optional<double> bytes; // per call: min_bytes (or the call inputs) + outputs
    std::optional<double> flops; // per call; absent when the target does not say
    QString dtype;
    QString device; // "cuda", "cpu"
};

// The ceilings the floor divides by, each with where it came from.
struct FloorCeilings
{
    QString card; // the card-table row's name, or the calibrated card's; empty when unknown
    std::optional<double> bandwidthBytesPerSecond;
    QString bandwidthSource; // "calibration" or "spec"
    std::optional<double> peakFlopsPerSecond;
    QString peakSource;  // "calibration" or "spec"
    QString calibration; // the calibration file, when one was used
    // Issue 41: a calibration claiming more than the card's spec sheet is capped at the spec (a
    // forged or broken file must not lower the floor); what was capped, else empty.
    QString capped;
};

struct FloorCheck
{
    bool applied = false;  // false: nothing to compare with (no bytes, no card); note says why
    bool violated = false; // the time is below floorMs / tolerance
    double floorMs = 0;    // max(memory, compute) floor of one call
    QString bound;         // "memory" or "compute": the larger of the two floors
    QString message;       // for a violation: what was impossible and whose responsibility it is
    QString note;          // for a floor not applied: why
};

class PhysicalFloor
{
public:
    // How far a timed call may beat the floor before it is impossible. Measured on the H200
    // (docs/contract.md, "The physical floor"; bench/floor_tolerance.py): torch's read-only
    // reductions reach at most 1.00x the calibrated copy rate, the recorded gemv candidate 1.04x;
    // 1.10x leaves room for a read stream better than both and stays under the card's spec
    // bandwidth (4.8 TB/s is 1.155x the measured 4.16 TB/s), past which nothing is honest.
    static constexpr double kTolerance = 1.10;

    // The ceilings for a card and dtype: measured (hotkernel calibrate) first, else the spec row;
    // a measured figure above the spec row's is replaced by the spec's (FloorCeilings::capped).
    static FloorCeilings ceilings(const CardSpec *card, const std::optional<MeasuredCeilings> &measured,
                                  const QString &dtype);
    // bytes, flops, dtype and device from a result line or a result's "contract" object.
    static FloorWork work(const Json &contract);
    // Checks one per-call time (ms) against the floor.
    static FloorCheck check(const FloorCeilings &ceilings, const FloorWork &work, double perCallMs,
                            double tolerance = kTolerance);

    // Each side's fastest run (name -> per-call samples in ms) against the floor: the
    // "physical_floor" field of a bench or verify result, and the first violation's message
    // ("the candidate: faster than ...") or empty.
    struct Report
    {
        Json json;
        QString violation;
    };
    static Report judge(const FloorCeilings &ceilings, const FloorWork &work,
                        const std::vector<std::pair<QString, std::vector<double>>> &sides,
                        double tolerance = kTolerance);
    // One line for the CLI text from that field: "32.3 us per call (memory-bound, 4.16 TB/s
    // from calibration, tolerance 1.25x)", or the note when no floor applied.
    static QString summary(const Json &field);
};

} // namespace hotkernel
