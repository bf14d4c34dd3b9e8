// SPDX-License-Identifier: Apache-2.0
// What the GPU is and what state it is in right now: NVML loaded at run time
// (libnvidia-ml.so.1), nvidia-smi as fallback. Asynchronous; safe on machines without a GPU.
#pragma once

#include "base/json.h"

#include <QCoroTask>
#include <QPointer>

namespace hotkernel {

class Job;

class GpuProbe
{
public:
    // One JSON object. Always has "available" (bool); when false, "reason" says why in words a
    // user can act on. When true, per device index 0 (the device hotkernel times on):
    //   name, uuid, driver, cuda_driver_version, memory_total_mib, power_limit_w,
    //   compute_capability ("9.0"), max_sm_clock_mhz, sm_clock_mhz, mem_clock_mhz,
    //   temperature_c, throttle_reasons (list of strings), l2_bytes, sm_count (where known),
    //   source ("nvml" or "nvidia-smi"), busy_processes (other compute processes on the device)
    static QCoro::Task<Json> snapshot(Job *job = nullptr);
    // What each process did on device 0 since sinceUs (microseconds since the epoch, the system
    // clock NVML stamps its samples with), from NVML's per-process utilisation samples:
    //   {"known": true, "since_us", "source": "nvml", "processes": [{"pid", "sm_percent_max",
    //    "mem_percent_max", "samples", "last_us"}], "sample_period_us", "sm_clock_mhz",
    //    "clock_event_reasons"}; a process that ran nothing is absent; last_us stamps its latest
    //    sample; sample_period_us is the median gap between two samples of one process (from
    //    periodFromUs on in processUtilizationNow; null with fewer); the clocks are read at the end
    //    (null when NVML could not say).
    // {"known": false, "reason"} without NVML or this query (nvidia-smi cannot give a window).
    static QCoro::Task<Json> processUtilization(qint64 sinceUs, Job *job = nullptr);
    // Device 0's SM clock and clock-event (throttle) reasons now (issue 41: read around each run):
    //   {"known": true, "source": "nvml", "sm_clock_mhz", "clock_event_reasons": [...]}, or
    //   {"known": false, "reason"} without NVML.
    static QCoro::Task<Json> clocks(Job *job = nullptr);
    // clocks() and processUtilization(), blocking (NVML calls can take tens of milliseconds): for
    // work already on the thread pool.
    static Json clocksNow();
    // periodFromUs (before sinceUs): samples from then on also tell sample_period_us.
    static Json processUtilizationNow(qint64 sinceUs, qint64 periodFromUs = 0);
    // The same object from nvidia-smi's `--query-gpu=FIELDS --format=csv,noheader,nounits` output
    // (device 0; busy_processes not filled): what snapshot() gives without NVML, and what a remote
    // host's probe gives (issue 24). "available" false, with the reason, when it lists no GPU.
    static Json fromNvidiaSmi(const QByteArray &csv, const QStringList &fields, const QString &source);
};

} // namespace hotkernel
