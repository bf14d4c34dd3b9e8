#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 42 on the GPU machine: every honest candidate of tests/data/honest through `hotkernel
verify` against its baseline, next to the corpus's own standalone timing (tests/data/honest/
standalone.py, which runs none of the contract's code). Prints one table: candidate, verdict,
speedup (mean_b / mean_c of the verify), the standalone speedup, whether the verdict has the sign
the standalone timing gives, the timers, wall time and verify's reason. Exits 1 when a candidate is
invalid or incorrect, or its verdict contradicts the standalone sign.

    python3 bench/honest_corpus.py [--hotkernel PATH] [--python PYTHON] [--n 5] [--only NAME] [--out DIR]

From the unpacked bundle: `. /tmp/hk/env.sh` puts hotkernel on PATH. Logs (each verify's JSON,
each standalone line, stderr tails) go to --out (default $OUT when set).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (candidate, baseline). Each must come out faster, slower or inconclusive, with the standalone sign.
CORPUS = [
    ("compile_default.py", "gelu_baseline.py"),
    ("compile_max_autotune.py", "gelu_baseline.py"),
    ("compile_reduce_overhead.py", "gelu_baseline.py"),
    ("triton_autotune.py", "gelu_baseline.py"),
    ("load_inline_ext.py", "gelu_baseline.py"),
    ("two_streams.py", "gelu_baseline.py"),
    ("workspace_once.py", "gelu_baseline.py"),
    ("kernel_cache.py", "gelu_baseline.py"),
    ("cublas.py", "matmul_baseline.py"),
    ("cudnn.py", "conv_baseline.py"),
]
# Within this of 1, a standalone speedup has no sign an inconclusive verdict could contradict.
SIGNLESS = 0.05


def find_hotkernel(given):
    for candidate in [given, os.environ.get("HOTKERNEL_BINARY"), os.path.join(ROOT, "build", "release", "app",
                                                                              "hotkernel"), shutil.which("hotkernel")]:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    sys.exit("honest_corpus: no hotkernel binary found; pass --hotkernel PATH or `. /tmp/hk/env.sh`")


def sign_ok(verdict, standalone):
    if standalone is None:
        return "?"
    if verdict == "faster":
        return "yes" if standalone > 1 else "NO"
    if verdict == "slower":
        return "yes" if standalone < 1 else "NO"
    if verdict == "inconclusive":
        return "yes" if abs(standalone - 1) <= SIGNLESS else "weak"
    return "NO"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hotkernel")
    ap.add_argument("--python", default=os.environ.get("HOTKERNEL_PYTHON") or shutil.which("python3"),
                    help="the interpreter with CUDA torch and Triton")
    ap.add_argument("--n", type=int, default=5, help="pairs per verify")
    ap.add_argument("--reps", type=int, default=9, help="blocks per side of the standalone timing")
    ap.add_argument("--only", help="one candidate (e.g. cudnn.py)")
    ap.add_argument("--out", default=os.environ.get("OUT"), help="folder for the logs")
    args = ap.parse_args()
    hotkernel = find_hotkernel(args.hotkernel)
    env = dict(os.environ, HOTKERNEL_NO_SESSION="1", HOTKERNEL_PYTHON=args.python)
    logdir = args.out or tempfile.mkdtemp(prefix="honest-corpus-logs-")
    os.makedirs(logdir, exist_ok=True)
    t0 = time.monotonic()
    rows, bad = [], 0
    with tempfile.TemporaryDirectory(prefix="honest-corpus-") as work:
        for name in os.listdir(os.path.join(ROOT, "tests", "data", "honest")):
            shutil.copy(os.path.join(ROOT, "tests", "data", "honest", name), work)
        shutil.copy(os.path.join(ROOT, "resources", "contract", "_hotkernel_contract.py"), work)
        corpus = [c for c in CORPUS if not args.only or c[0] == args.only]
        for i, (candidate, baseline) in enumerate(corpus):
            stem = os.path.splitext(candidate)[0]
            print("[%d/%d %4.0f s] %s: standalone timing" % (i + 1, len(corpus), time.monotonic() - t0, candidate),
                  file=sys.stderr, flush=True)
            p = subprocess.run([args.python, "standalone.py", candidate, baseline, "--reps", str(args.reps)],
                               cwd=work, env=env, capture_output=True, text=True)
            with open(os.path.join(logdir, stem + ".standalone.log"), "w") as f:
                f.write(p.stdout + "\n--- stderr ---\n" + p.stderr)
            standalone = None
            try:
                standalone = json.loads(p.stdout.strip().splitlines()[-1])["speedup"]
            except (ValueError, IndexError, KeyError):
                print("  standalone failed: %s" % p.stderr.strip()[-400:], file=sys.stderr, flush=True)
            print("[%d/%d %4.0f s] %s: verify -n %d" % (i + 1, len(corpus), time.monotonic() - t0, candidate, args.n),
                  file=sys.stderr, flush=True)
            started = time.monotonic()
            p = subprocess.run([hotkernel, "verify", baseline, candidate, "-n", str(args.n), "--json"], cwd=work,
                               env=env, capture_output=True, text=True)
            wall = time.monotonic() - started
            with open(os.path.join(logdir, stem + ".verify.json"), "w") as f:
                f.write(p.stdout)
            with open(os.path.join(logdir, stem + ".verify.stderr"), "w") as f:
                f.write(p.stderr)
            try:
                r = json.loads(p.stdout)
            except ValueError:
                r = {"verdict": "error", "reason": (p.stderr or p.stdout).strip()[-300:]}
            verdict = r.get("verdict") or "error"
            b, c = (r.get("baseline_stats") or {}).get("mean_ms"), (r.get("candidate_stats") or {}).get("mean_ms")
            ratio = b / c if b and c else None
            agrees = sign_ok(verdict, standalone)
            ok = verdict in ("faster", "slower", "inconclusive") and agrees != "NO"
            bad += not ok
            timers = r.get("timers") or {}
            rows.append((candidate, verdict, "-" if ratio is None else "%.3fx" % ratio,
                         "-" if standalone is None else "%.3fx" % standalone, agrees,
                         "%s/%s" % (timers.get("baseline"), timers.get("candidate")), "%.0f s" % wall,
                         ("" if ok else "WRONG: ") + (r.get("reason") or r.get("error") or "").replace("\n", " ")[:260]))
            print("  " + "  ".join(rows[-1]), file=sys.stderr, flush=True)
    head = ("candidate", "verdict", "speedup", "standalone", "sign", "timers b/c", "wall", "reason")
    print("honest corpus (%s, %s, n=%d, %.0f s)" % (hotkernel, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                                    args.n, time.monotonic() - t0))
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print("logs: %s" % logdir)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
