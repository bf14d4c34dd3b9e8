// SPDX-License-Identifier: Apache-2.0
// gpu_info's result as a value. The probe's snapshot, the card-table row and the calibration stay
// the documents their makers wrote (hostGpuSnapshot, CardSpec::toJson, the calibration file):
// this type only says which is which and what front-ends read of them. Plain values; any thread.
#pragma once

#include "base/json.h"

#include <QString>

#include <optional>

namespace hotkernel {

struct GpuInfoResult
{
    bool available = false;
    QString reason; // why there is no GPU; empty when there is one
    Json gpu;       // the probe's snapshot (name, uuid, driver, clocks, ...)
    Json card;      // the card-table row, or null
    Json calibration;
    Json tools;      // NVIDIA tool -> path or null
    Json toolSearch; // folders searched before PATH
    Json host;       // the remote host the card was read on, or null for this machine

    // The GPU's name as the driver gives it ("NVIDIA H200"); empty without a GPU.
    QString name() const;

    Json toJson() const;
    // nullopt when json is not a gpu_info result.
    static std::optional<GpuInfoResult> fromJson(const Json &json);
};

} // namespace hotkernel
