#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 42 on the GPU machine: A/A and the ~3% slower candidate. The eager rmsnorm 4096x8192 bf16
(bench/verify_speed.py's kernels) against its untouched generated candidate, verified SESSION times
in the directory's session (a `hotkernel serve` this script starts, spares on) and ALONE times with
`--no-session`: any verdict but inconclusive is a false one. Then the Triton kernel against its copy
that redoes 3% of its rows, SLOW times in the session: it must be called slower at least 9 in 10.
Verifies use verify's default adaptive n, as a user's do. Prints one table; one line per verify as it
comes (stderr); each result as a JSON line in --out (default $OUT).

    python3 bench/aa_gpu.py [--hotkernel PATH] [--session 20] [--alone 20] [--slow 10] [--out DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aa_cpu import cli, find_hotkernel, speed_ratio  # noqa: E402
from verify_speed import KERNELS, with_fn  # noqa: E402

COMMON = ["--shape", "4096x8192", "--extra", "w:8192", "--rotate", "x", "--dtype", "bf16", "--out-dir", "."]


def prepare(hotkernel, workdir, env):
    """rmsnorm (eager) with its untouched candidate, rmsnormt (Triton) with a ~3% slower candidate."""
    with open(os.path.join(workdir, "kernels_speed.py"), "w") as f:
        f.write(KERNELS)
    for name, fn in [("rmsnorm", "rmsnorm_eager"), ("rmsnormt", "rmsnorm_triton")]:
        out, _ = cli(hotkernel, workdir, env, "new", name, "--from", f"./kernels_speed.py:{fn}", *COMMON)
        if out.get("verdict") == "error":
            sys.exit("aa_gpu: hotkernel new %s failed: %s" % (name, out.get("reason")))
    with_fn(os.path.join(workdir, "rmsnormt_candidate.py"), os.path.join(workdir, "rmsnormt_slow_candidate.py"),
            "from kernels_speed import rmsnorm_triton_slow as fn  # noqa: E402")


def series(hotkernel, workdir, env, label, count, baseline, candidate, log, t0):
    verdicts, ratios = {}, []
    for i in range(count):
        out, wall = cli(hotkernel, workdir, env, "verify", baseline, candidate)
        verdict = out.get("verdict")
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
        ratio = speed_ratio(out)
        if ratio is not None:
            ratios.append(ratio)
        print("[%4.0f s] %-26s %2d/%d %-12s mean_b/mean_c %s n %s %.1f s %s" % (
            time.monotonic() - t0, label, i + 1, count, verdict, "-" if ratio is None else "%.4f" % ratio,
            out.get("n"), wall, "" if verdict in ("faster", "slower", "inconclusive") else out.get("reason")),
            file=sys.stderr, flush=True)
        if log:
            log.write(json.dumps({"series": label, "i": i, "wall_s": wall, "result": out}) + "\n")
            log.flush()
    return verdicts, ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hotkernel")
    ap.add_argument("--session", type=int, default=20, help="A/A verifies in the session")
    ap.add_argument("--alone", type=int, default=20, help="A/A verifies with --no-session")
    ap.add_argument("--slow", type=int, default=10, help="verifies of the ~3%% slower candidate (in the session)")
    ap.add_argument("--slow-fraction", type=float, default=0.03)
    ap.add_argument("--open-wait", type=float, default=10, help="seconds for the session to start its spares")
    ap.add_argument("--out", default=os.environ.get("OUT"))
    args = ap.parse_args()
    hotkernel = find_hotkernel(args.hotkernel)
    env = dict(os.environ, VERIFY_SPEED_SLOW_FRACTION=str(args.slow_fraction))
    alone = dict(env, HOTKERNEL_NO_SESSION="1")
    workdir = tempfile.mkdtemp(prefix="hotkernel-aa-gpu-")
    log = open(os.path.join(args.out, "aa_gpu.jsonl"), "w") if args.out else None
    t0 = time.monotonic()
    rows = []
    serve = None
    try:
        prepare(hotkernel, workdir, alone)
        serve = subprocess.Popen([hotkernel, "serve"], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(args.open_wait)
        if args.session:
            rows.append(("A/A in a session", args.session, *series(
                hotkernel, workdir, env, "A/A in a session", args.session, "rmsnorm_baseline.py",
                "rmsnorm_candidate.py", log, t0)))
        if args.slow:
            rows.append(("~%.0f%% slower, in a session" % (args.slow_fraction * 100), args.slow, *series(
                hotkernel, workdir, env, "slower", args.slow, "rmsnormt_baseline.py", "rmsnormt_slow_candidate.py",
                log, t0)))
        serve.terminate()
        serve.wait(30)
        serve = None
        if args.alone:
            rows.append(("A/A alone (--no-session)", args.alone, *series(
                hotkernel, workdir, alone, "A/A alone", args.alone, "rmsnorm_baseline.py", "rmsnorm_candidate.py",
                log, t0)))
    finally:
        if serve is not None:
            serve.terminate()
            serve.wait(30)
        shutil.rmtree(workdir, ignore_errors=True)
    print("A/A and ~%.0f%% slower on the GPU (%s, %s, %.0f s)" % (
        args.slow_fraction * 100, hotkernel, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        time.monotonic() - t0))
    print("| series | verifies | faster | slower | inconclusive | other | mean_b/mean_c |")
    print("|---|---|---|---|---|---|---|")
    for label, count, verdicts, ratios in rows:
        known = sum(verdicts.get(v, 0) for v in ("faster", "slower", "inconclusive"))
        spread = "%.4f-%.4f" % (min(ratios), max(ratios)) if ratios else "-"
        print("| %s | %d | %d | %d | %d | %d | %s |" % (label, count, verdicts.get("faster", 0),
                                                      verdicts.get("slower", 0), verdicts.get("inconclusive", 0),
                                                      count - known, spread))
    print("goals: A/A 0 faster or slower of %d; the slower candidate called slower >= 9 in 10" % (
        args.session + args.alone))


if __name__ == "__main__":
    main()
