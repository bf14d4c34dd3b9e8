#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How far legitimate kernels beat the copy rate on this card: the measurement behind
PhysicalFloor::kTolerance (core/measure/physicalfloor.h, issue 25). Torch only; run it on the GPU
machine, on the card the tolerance is for.

python bench/floor_tolerance.py [--calibration results/calibration/<card>-<time>.json] [--repeats 9]

The floor calls a result impossible when bytes per call / time exceeds tolerance x the copy rate
(read + written bytes per second, as `hotkernel calibrate` measures it with cudaMemcpyAsync). A
read-only stream has no write turnaround on the memory bus and legitimately runs faster than that,
so the tolerance must cover the fastest honest read-mostly kernel. This prints one row per
operation and size (time, bytes, GB/s, ratio to the copy rate measured here and, with
--calibration, to the calibration's copy_gbs), and the largest ratio with a suggested tolerance.
Every buffer set rotates through more than 2x the L2 size so no call reads from cache.
"""
import argparse
import json
import math
import statistics
import sys

import torch

MiB = 1024 * 1024


def rotated(make, per_set_bytes, l2_bytes):
    """Enough independent sets that consecutive calls never find their inputs in L2."""
    k = max(2, math.ceil(2 * l2_bytes / per_set_bytes) + 1)
    return [make() for _ in range(k)]


def timed(call, sets, repeats, calls=20):
    """Median per-call milliseconds: CUDA events around `calls` back-to-back calls over rotated sets."""
    for s in sets[:2]:
        call(*s)
    torch.cuda.synchronize()
    per_call = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for i in range(calls):
            call(*sets[i % len(sets)])
        end.record()
        end.synchronize()
        per_call.append(start.elapsed_time(end) / calls)
    return statistics.median(per_call)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calibration", help="a hotkernel-calibrate JSON of this card (results/calibration/...)")
    p.add_argument("--repeats", type=int, default=9)
    a = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("no CUDA device: run this on the GPU machine")
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    l2 = getattr(props, "L2_cache_size", 0) or 64 * MiB
    cal_copy = None
    if a.calibration:
        with open(a.calibration) as f:
            cal = json.load(f)
        cal_copy = cal["figures"]["copy_gbs"]["value"]
    torch.backends.cuda.matmul.allow_tf32 = False

    rows = []  # (kind, operation, size, ms, bytes)

    # The copy rate, as calibrate measures it: device-to-device copies, bytes read + written.
    copy_bytes = 256 * MiB
    sets = rotated(lambda: (torch.empty(copy_bytes, dtype=torch.uint8, device=dev),
                            torch.empty(copy_bytes, dtype=torch.uint8, device=dev)), 2 * copy_bytes, l2)
    ms = timed(lambda d, s: d.copy_(s), sets, a.repeats)
    copy_gbs = 2 * copy_bytes / (ms * 1e-3) / 1e9
    rows.append(("copy", "copy_ (memcpy d2d)", "256 MiB", ms, 2 * copy_bytes))
    del sets

    # Read-only streams: reductions over bf16 buffers, bytes read / time.
    for mib in (64, 128, 256, 1024):
        n = mib * MiB // 2
        sets = rotated(lambda: (torch.randn(n, dtype=torch.bfloat16, device=dev),), mib * MiB, l2)
        for name, fn in (("sum fp32 acc", lambda x: x.sum(dtype=torch.float32)),
                         ("amax", lambda x: x.amax())):
            rows.append(("read", name, "%d MiB bf16" % mib, timed(fn, sets, a.repeats), mib * MiB))
        del sets

    # Read-mostly kernels of the examples' shapes: gemv (bf16 8192x8192 and 16384x8192).
    for m, k in ((8192, 8192), (16384, 8192)):
        sets = rotated(lambda: (torch.randn(m, k, dtype=torch.bfloat16, device=dev),
                                torch.randn(k, dtype=torch.bfloat16, device=dev)), m * k * 2, l2)
        nbytes = (m * k + k + m) * 2
        rows.append(("read-mostly", "torch.mv", "%dx%d bf16" % (m, k), timed(torch.mv, sets, a.repeats), nbytes))
        del sets

    # Read + write of equal size (rmsnorm/softmax-like), for contrast.
    n = 64 * MiB
    sets = rotated(lambda: (torch.randn(n, dtype=torch.bfloat16, device=dev),), n * 2, l2)
    rows.append(("read+write", "x * 2", "128 MiB bf16", timed(lambda x: x * 2, sets, a.repeats), 2 * n * 2))
    del sets

    print("card: %s   L2 %d MiB   copy rate here: %.1f GB/s%s" % (
        props.name, l2 // MiB, copy_gbs,
        "   calibration copy_gbs: %.1f GB/s" % cal_copy if cal_copy else ""))
    head = "%-12s %-20s %-18s %10s %12s %10s %9s" % ("kind", "operation", "size", "us/call", "bytes", "GB/s",
                                                   "/copy")
    if cal_copy:
        head += " %9s" % "/calib"
    print(head)
    worst = 0.0
    for kind, name, size, ms, nbytes in rows:
        gbs = nbytes / (ms * 1e-3) / 1e9
        line = "%-12s %-20s %-18s %10.2f %12d %10.1f %9.3f" % (kind, name, size, ms * 1e3, nbytes, gbs, gbs / copy_gbs)
        if cal_copy:
            line += " %9.3f" % (gbs / cal_copy)
            worst = max(worst, gbs / cal_copy)
        else:
            worst = max(worst, gbs / copy_gbs)
        print(line)
    # A margin over the fastest honest stream: run-to-run spread on the H200 is ~0.3%, clocks and
    # other cards of the model vary by a few percent more.
    print("largest ratio to the %s copy rate: %.3f; suggested PhysicalFloor::kTolerance: %.2f" % (
        "calibration's" if cal_copy else "measured", worst, math.ceil(max(worst, 1.0) * 1.05 * 100) / 100))
    print("(the recorded gemv candidate, results/gemv/, runs at 1.04x the calibration's copy rate: stay above it)")


if __name__ == "__main__":
    main()
