# SPDX-License-Identifier: Apache-2.0
"""Runs the kernel-speedrun loop over the five example targets on the GPU machine, through the
hotkernel CLI only: for each target, verify the untouched candidate, then each prepared variant
(bench/gpu/variants/TARGET__NN-name.py, one change each), record every verify win or lose, keep a
variant only when record() says it beats the best so far, and finish with three verifies of n=7 of
the kept candidate, each recorded. Run from the repository root with `hotkernel` on PATH:
    python3 bench/gpu/examples_loop.py [TARGET ...]
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
VARIANTS = os.path.join(ROOT, "bench", "gpu", "variants")
WHO = "agent: Claude (hotkernel developer session), Triton written by hand during bring-up"
TARGETS = ["rmsnorm", "softmax", "gemv", "decode_attention", "int4_gemv"]
EXPERIMENT_FLAGS = ["--max-seconds", "40"]


def hotkernel(*args, check=True):
    started = time.time()
    proc = subprocess.run(["hotkernel", "--json", *args], cwd=ROOT, capture_output=True, text=True)
    took = time.time() - started
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        result = None
    if result is None or "error" in result:
        print(f"!! hotkernel {' '.join(args)} failed ({proc.returncode}) after {took:.1f}s:\n{proc.stdout[-800:]}\n{proc.stderr[-2000:]}", flush=True)
        return None
    if proc.returncode != 0:  # the result was printed; a non-zero exit after it is reported, not hidden
        print(f"!! hotkernel {args[0]} exited {proc.returncode} after printing its result: {proc.stderr[-300:]}", flush=True)
    return result


def verify_and_record(target, note, extra):
    base, cand = f"examples/{target}_baseline.py", f"examples/{target}_candidate.py"
    result = hotkernel("verify", base, cand, *extra)
    if result is None:
        return None, None
    path = os.path.join("/tmp", f"verify-{target}-{int(time.time() * 1000)}.json")
    with open(path, "w") as fh:
        json.dump(result, fh)
    rec = hotkernel("record", target, path, "--note", note, "--who", WHO)
    b, c = result.get("baseline_stats", {}), result.get("candidate_stats", {})
    print(f"{target:17s} {result.get('verdict', '?'):12s} speedup {result.get('speedup')}  "
          f"b {b.get('mean_ms', 0) * 1000:8.2f} us  c {c.get('mean_ms', 0) * 1000:8.2f} us  n {result.get('n')}  "
          f"beats_best {rec.get('beats_best') if rec else None}  | {note}", flush=True)
    return result, rec


def run_target(target):
    cand = os.path.join(EXAMPLES, f"{target}_candidate.py")
    untouched = open(cand).read()
    kept = untouched
    verify_and_record(target, "untouched candidate (it starts as the baseline): must not be faster", EXPERIMENT_FLAGS)
    for variant in sorted(glob.glob(os.path.join(VARIANTS, f"{target}__*.py"))):
        note = open(variant[:-3] + ".note").read().strip()
        shutil.copyfile(variant, cand)
        result, rec = verify_and_record(target, note, EXPERIMENT_FLAGS)
        if rec and rec.get("beats_best"):
            kept = open(cand).read()
        else:
            with open(cand, "w") as fh:  # revert to the best so far
                fh.write(kept)
    if kept == untouched:
        print(f"{target}: no variant beat the baseline; the candidate stays untouched", flush=True)
        return
    for i in range(3):
        verify_and_record(target, f"final candidate, reproduction {i + 1} of 3 (n=7)", ["-n", "7"])


if __name__ == "__main__":
    chosen = sys.argv[1:] or TARGETS
    for t in chosen:
        started = time.time()
        run_target(t)
        print(f"== {t} done in {time.time() - started:.0f}s", flush=True)
