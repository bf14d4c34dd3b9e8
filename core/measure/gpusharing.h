// SPDX-License-Identifier: Apache-2.0
// Who else computes on the GPU while we time. GPU locks are per user (issue 18), so another user's
// process can share the card; NVML (or nvidia-smi --query-compute-apps) lists it, and a verdict
// must then not call a candidate faster or slower on those timings alone. Pure but for the /proc
// look-ups behind isOwnProcess() and isVisible(); any thread.
#pragma once

#include "base/json.h"

#include <QString>

#include <functional>
#include <vector>

namespace hotkernel::GpuSharing {

struct Other
{
    long long pid = 0;
    QString name;
    double memoryMib = -1; // -1 when not reported
};

// This process or one below it (our supervised workers and what they started).
bool isOwnProcess(long long pid);
bool isVisibleProcess(long long pid);

// The processes in gpu["busy_processes"] (GpuProbe's snapshot) that are not ours. A pid that is
// not visible here (another PID namespace: a container) cannot be told apart from our own worker
// and is left out rather than blamed.
std::vector<Other> others(const Json &gpu, const std::function<bool(long long)> &isOurs = isOwnProcess,
                          const std::function<bool(long long)> &isVisible = isVisibleProcess);
// "pid 770 python3 (1202 MiB), pid 81 ..."
QString describe(const std::vector<Other> &others);
// Merges b into a, leaving out pids a already has.
void merge(std::vector<Other> &a, const std::vector<Other> &b);

} // namespace hotkernel::GpuSharing
