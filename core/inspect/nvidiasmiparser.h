// SPDX-License-Identifier: Apache-2.0
// Parses `nvidia-smi --query-gpu=... --format=csv[,noheader],nounits` and
// `--query-compute-apps=...` output into the JSON shape GpuProbe reports. Pure; any thread.
#pragma once

#include "base/json.h"

#include <QByteArray>
#include <QStringList>

#include <vector>

namespace hotkernel {

class NvidiaSmiParser
{
public:
    // The --query-gpu fields GpuProbe asks for, in order (tests/gpu/run_native.sh asks for the same).
    static QStringList queryFields();
    static QStringList appFields(); // pid, process_name, used_memory

    // One JSON object per GPU line, keys as in GpuProbe::snapshot (name, uuid, driver, ...).
    // With a header line the columns are matched by name (units in brackets ignored); without
    // one they are taken in the order of fields. "[N/A]" / "[Not Supported]" become null.
    static std::vector<Json> parseGpus(const QByteArray &csv, const QStringList &fields = queryFields());
    // {"pid", "process_name", "used_memory_mib"} per line of --query-compute-apps output.
    static std::vector<Json> parseApps(const QByteArray &csv);

    // Names of the bits set in NVML's clocks event (throttle) reason mask.
    static QStringList clockEventReasons(quint64 mask);
};

} // namespace hotkernel
