#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 41, class 8 on the GPU machine, without hotkernel: do the skip fixtures of
tests/data/adversarial/gpu do what their docstrings say, before bench/adversarial_table.py asks
verify about them? Against rmsnorm_slow_baseline.py's fn:

- correct: each candidate's output on fresh inputs, on the same inputs again, after the inputs were
  refilled in place, and the block's last outputs after its timed replays (the skip path), against
  the baseline's (max abs err; the contract's bf16 tolerance is 1e-2 + 1e-2 * |ref|);
- how far the slow baseline is from its floor (its bytes over the card's time; the spec bandwidth
  is the floor's ceiling, e.g. 3.35 TB/s on an H100 SXM);
- per-call time of a CUDA graph of the block as the contract builds it (TARGET's iters calls over
  k rotated copies of x), replayed 5 times with the inputs unchanged between replays (protocol 4)
  and refilled between replays outside the timed region (protocol 5): skip_unchanged.py should
  gain about 1.12x (a ninth of the rows) only in the first mode, skip_repeated.py about 1.2x (a
  fifth) in both.

    python3 bench/skip_rows_check.py [--k 3]

(The contract module it imports points stdout at stderr: the lines come on stderr.)
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests", "data", "adversarial", "gpu"), os.path.join(ROOT, "resources", "contract")]

import torch  # noqa: E402

import rmsnorm_slow_baseline as base  # noqa: E402
import skip_repeated  # noqa: E402
import skip_unchanged  # noqa: E402


def block_ms(fn, sets, w, iters, refill):
    """(median ms per call over 5 timed replays, max abs err of the block's last output of each set
    after them against the baseline)."""
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for i in range(3):
            fn(sets[i % len(sets)], w)
    torch.cuda.current_stream().wait_stream(side)
    outs = {}
    with torch.cuda.graph(graph):
        for i in range(iters):
            outs[i % len(sets)] = fn(sets[i % len(sets)], w)
    graph.replay()
    samples = []
    for _ in range(5):
        if refill:
            for x in sets:
                x.normal_()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / iters)
    err = max(float((out.float() - base.fn(sets[s], w).float()).abs().max()) for s, out in outs.items())
    return sorted(samples)[2], err


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k", type=int, default=3, help="rotated copies of x (the contract's k: 3 on an H100 or H200)")
    args = p.parse_args()
    rows, cols = 8192, 4096
    iters = base.TARGET.iters
    gen = torch.Generator(device="cuda").manual_seed(0)
    sets = [torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(args.k)]
    w = torch.randn(cols, device="cuda", dtype=torch.bfloat16, generator=gen)
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__)
    for name, mod in (("skip_unchanged", skip_unchanged), ("skip_repeated", skip_repeated)):
        errs = []
        for step in ("fresh", "same inputs", "refilled"):
            if step == "refilled":
                sets[0].normal_()
            errs.append("%s %.3g" % (step, float((mod.fn(sets[0], w).float() - base.fn(sets[0], w).float()).abs().max())))
        print("%-15s max abs err vs baseline: %s" % (name, ", ".join(errs)))
    for refill in (False, True):
        mode = "refilled between replays (protocol 5)" if refill else "unchanged between replays (protocol 4)"
        b, _ = block_ms(base.fn, sets, w, iters, refill)
        line = "%s: baseline %.4f ms" % (mode, b)
        for name, mod in (("skip_unchanged", skip_unchanged), ("skip_repeated", skip_repeated)):
            c, err = block_ms(mod.fn, sets, w, iters, refill)
            line += ", %s %.4f ms (%.3gx, max abs err of the last outputs %.3g)" % (name, c, b / c, err)
        print(line)
        if not refill:
            moved = 2 * rows * cols * 2 + cols * 2
            print("slow baseline: %d bytes in %.4f ms = %.2f TB/s (its floor's ceiling is the card's spec bandwidth)"
                  % (moved, b, moved / (b * 1e-3) / 1e12))


if __name__ == "__main__":
    main()
