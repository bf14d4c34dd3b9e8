// SPDX-License-Identifier: Apache-2.0
// Who else computes on the GPU while we time. GPU locks are per user (issue 18), so another user's
// process can share the card; NVML (or nvidia-smi --query-compute-apps) lists it, and a verdict
// must then not call a candidate faster or slower on those timings alone. A process that only holds
// a context (issue 42: another session's idle spare workers) computes nothing: NVML's per-process
// utilisation samples over the timed runs tell the two apart. Pure but for the /proc
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
    // The most of the card it kept busy in any utilisation sample of the timed runs (NVML's SM or
    // memory utilisation, percent, the larger); -1 when not known, 0 when it only held a context
    // (an idle CUDA context, such as another hotkernel session's spare worker, computes nothing).
    double busyPercentMax = -1;
};

// This process or one below it (our supervised workers and what they started).
bool isOwnProcess(long long pid);
bool isVisibleProcess(long long pid);

// The processes in gpu["busy_processes"] (GpuProbe's snapshot) that are not ours. A pid that is
// not visible here (another PID namespace: a container) cannot be told apart from our own worker
// and is left out rather than blamed.
std::vector<Other> others(const Json &gpu, const std::function<bool(long long)> &isOurs = isOwnProcess,
                          const std::function<bool(long long)> &isVisible = isVisibleProcess);
// Per-process activity during the timed runs, from GpuProbe::processUtilization's object
// ({"known": bool, "processes": [{"pid", "sm_percent_max", "mem_percent_max", "samples"}]}): sets
// each process's busyPercentMax (0 for one the samples do not list: it ran nothing). Unknown
// activity leaves -1.
void addActivity(std::vector<Other> &others, const Json &utilization);
// Those that computed during the timed runs, or whose activity is unknown (then their presence
// alone counts: the verdict cannot tell them from computing ones). idle, when given, gets the rest.
std::vector<Other> computing(const std::vector<Other> &others, std::vector<Other> *idle = nullptr);
// "pid 770 python3 (1202 MiB), pid 81 ..."; with known activity "pid 770 python3 (1202 MiB, busy
// up to 97%)" or "(1202 MiB, idle)".
QString describe(const std::vector<Other> &others);
// Merges b into a, leaving out pids a already has.
void merge(std::vector<Other> &a, const std::vector<Other> &b);

} // namespace hotkernel::GpuSharing
