#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The honest corpus's own timing, independent of hotkernel's contract (issue 42): the sign a
verify gives a candidate is checked against this. It imports the candidate and its baseline with a
stand-in for _hotkernel_contract (so none of the contract's code runs), draws the inputs with
torch.randn, and times blocks of the target's `iters` calls with CUDA events, baseline and candidate
alternating, each block after a 256 MiB write that evicts L2. Prints one JSON line:
{"candidate", "baseline", "baseline_ms", "candidate_ms", "speedup" (baseline / candidate, medians)}.

usage: standalone.py CANDIDATE.py BASELINE.py [--reps 15]   (run in the folder that holds both)
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import types


def _stand_in_contract():
    """A module named _hotkernel_contract with the names the corpus imports, doing nothing."""
    module = types.ModuleType("_hotkernel_contract")

    class Input:
        def __init__(self, name, shape, dtype=None, high=None):
            self.name, self.shape, self.dtype, self.high = name, list(shape), dtype, high

    class Target:
        def __init__(self, name, inputs, dtype="bf16", iters=50, **kwargs):
            self.name, self.inputs, self.dtype, self.iters = name, list(inputs), dtype, iters

    module.Input, module.Target, module.main = Input, Target, lambda *a, **k: None
    sys.modules["_hotkernel_contract"] = module


def _load(path):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("candidate")
    ap.add_argument("baseline")
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.candidate)))
    _stand_in_contract()
    import torch
    baseline = _load(args.baseline)
    candidate = _load(args.candidate)
    target = baseline.TARGET
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[target.dtype]
    gen = torch.Generator(device="cuda").manual_seed(1234)
    inputs = [torch.randn(i.shape, generator=gen, device="cuda", dtype=dtype) for i in target.inputs]
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    sides = {"baseline": baseline.fn, "candidate": candidate.fn}
    with torch.no_grad():
        for fn in sides.values():
            for _ in range(5):  # compiles, autotunes, records its graphs
                fn(*inputs)
        torch.cuda.synchronize()
        times = {name: [] for name in sides}
        for _ in range(args.reps):
            for name, fn in sides.items():
                flush.zero_()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(target.iters):
                    fn(*inputs)
                end.record()
                end.synchronize()
                times[name].append(start.elapsed_time(end) / target.iters)
    b, c = statistics.median(times["baseline"]), statistics.median(times["candidate"])
    print(json.dumps({"candidate": os.path.basename(args.candidate), "baseline": os.path.basename(args.baseline),
                      "baseline_ms": b, "candidate_ms": c, "speedup": b / c}), flush=True)


if __name__ == "__main__":
    main()
