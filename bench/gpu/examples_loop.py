# SPDX-License-Identifier: Apache-2.0
"""Runs the kernel-speedrun loop over the five example targets on the GPU machine, through the
hotkernel CLI only: for each target, verify the untouched candidate, then each prepared variant
(bench/gpu/variants/TARGET__NN-name.py, one change each), record every verify win or lose, keep a
variant only when record() says it beats the best so far, and finish with three verifies of n=7 of
the kept candidate, each recorded. Run from the repository root with `hotkernel` on PATH:
    python3 bench/gpu/examples_loop.py [TARGET ...] [--variants 03,04] [--skip-untouched] [--library]
        [--reproduce WHY]
--variants runs only the variants whose number is listed (later sessions add variants without
re-recording the earlier ones); --skip-untouched leaves out the untouched-candidate check;
--reproduce runs only the three recorded verifies of n=7 of the candidate as it stands (after a
change to code it calls, WHY says which), with the author of its last recorded reproduction;
--library first verifies each library path in bench/gpu/library/TARGET__NAME.py against the
baseline and records it (the baseline choice), restoring the candidate afterwards.
A variant or library path may carry a .who file beside its .note; otherwise WHO below is used.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
VARIANTS = os.path.join(ROOT, "bench", "gpu", "variants")
LIBRARY = os.path.join(ROOT, "bench", "gpu", "library")
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


def who_for(script):
    path = script[:-3] + ".who"
    return open(path).read().strip() if os.path.exists(path) else WHO


def verify_and_record(target, note, extra, who=WHO):
    base, cand = f"examples/{target}_baseline.py", f"examples/{target}_candidate.py"
    result = hotkernel("verify", base, cand, *extra)
    if result is None:
        return None, None
    path = os.path.join("/tmp", f"verify-{target}-{int(time.time() * 1000)}.json")
    with open(path, "w") as fh:
        json.dump(result, fh)
    rec = hotkernel("record", target, path, "--note", note, "--who", who)
    b, c = result.get("baseline_stats", {}), result.get("candidate_stats", {})
    print(f"{target:17s} {result.get('verdict', '?'):12s} speedup {result.get('speedup')}  "
          f"b {b.get('mean_ms', 0) * 1000:8.2f} us  c {c.get('mean_ms', 0) * 1000:8.2f} us  n {result.get('n')}  "
          f"beats_best {rec.get('beats_best') if rec else None}  | {note}", flush=True)
    return result, rec


def run_target(target, numbers=None, skip_untouched=False, library=False):
    cand = os.path.join(EXAMPLES, f"{target}_candidate.py")
    untouched = open(cand).read()
    if library:
        for path in sorted(glob.glob(os.path.join(LIBRARY, f"{target}__*.py"))):
            shutil.copyfile(path, cand)
            verify_and_record(target, open(path[:-3] + ".note").read().strip(), EXPERIMENT_FLAGS, who_for(path))
        with open(cand, "w") as fh:
            fh.write(untouched)
    kept = untouched
    if not skip_untouched:
        verify_and_record(target, "untouched candidate (it starts as the baseline): must not be faster", EXPERIMENT_FLAGS)
    winner_who = WHO
    for variant in sorted(glob.glob(os.path.join(VARIANTS, f"{target}__*.py"))):
        number = os.path.basename(variant).split("__")[1].split("-")[0]
        if numbers is not None and number not in numbers:
            continue
        note = open(variant[:-3] + ".note").read().strip()
        shutil.copyfile(variant, cand)
        result, rec = verify_and_record(target, note, EXPERIMENT_FLAGS, who_for(variant))
        if rec and rec.get("beats_best"):
            kept = open(cand).read()
            winner_who = who_for(variant)
        else:
            with open(cand, "w") as fh:  # revert to the best so far
                fh.write(kept)
    if kept == untouched:
        print(f"{target}: no variant beat the best so far; the candidate stays as it was", flush=True)
        return
    reproduce(target, "final", winner_who)


def reproduce(target, which, who, after=""):
    """The three recorded verifies of n=7 of the candidate as it stands (which: "final" after the
    loop kept a variant, "kept" after a change to code it calls, which `after` says)."""
    for i in range(1, 4):
        verify_and_record(target, f"{which} candidate, reproduction {i} of 3 (n=7){after}", ["-n", "7"], who)


REPRODUCTION_NOTES = ("final candidate, reproduction", "kept candidate, reproduction")


def kept_who(target):
    """Who made the kept candidate: the author of its last recorded reproduction."""
    for path in sorted(glob.glob(os.path.join(ROOT, "results", target, "*.json")), reverse=True):
        with open(path) as fh:
            log = json.load(fh)
        if log.get("note", "").startswith(REPRODUCTION_NOTES):
            return log["who"]
    raise SystemExit(f"examples_loop: no recorded reproduction of the {target} candidate in results/{target}/ "
                     "to take its author from; run the loop on a variant first")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("targets", nargs="*")
    parser.add_argument("--variants", help="comma-separated variant numbers to run, e.g. 03,04")
    parser.add_argument("--skip-untouched", action="store_true")
    parser.add_argument("--library", action="store_true")
    parser.add_argument("--reproduce", metavar="WHY")
    args = parser.parse_args()
    numbers = set(args.variants.split(",")) if args.variants else None
    for t in args.targets or TARGETS:
        started = time.time()
        if args.reproduce:
            reproduce(t, "kept", kept_who(t), " after " + args.reproduce)
        else:
            run_target(t, numbers, args.skip_untouched, args.library)
        print(f"== {t} done in {time.time() - started:.0f}s", flush=True)
