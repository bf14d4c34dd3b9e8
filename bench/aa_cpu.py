#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 42: A/A on CPU torch. The untouched candidate of `hotkernel new gelu --from
torch.nn.functional:gelu --shape 1024x2048 --dtype fp32 --device cpu --iters 20` (the README's
first command) against its baseline, `verify -n 5`, COUNT times in the directory's session (a
`hotkernel serve` this script starts) and COUNT times alone (`--no-session`). Any verdict other
than inconclusive is a false one. Prints one table and one line per verify; run it on a loaded
machine (other builds) to see what the contract's schedule does under noise.

usage: bench/aa_cpu.py [--hotkernel PATH] [--session 20] [--alone 20] [--n 5] [--out DIR]
Needs HOTKERNEL_PYTHON (default /usr/bin/python3) with CPU torch.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def find_hotkernel(given):
    for candidate in [given, os.environ.get("HOTKERNEL_BINARY"), "build/release/app/hotkernel",
                      "build/dev/app/hotkernel", shutil.which("hotkernel")]:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    sys.exit("aa_cpu: no hotkernel binary found; pass --hotkernel PATH")


def cli(hotkernel, workdir, env, *args):
    started = time.monotonic()
    p = subprocess.run([hotkernel, "--json", "--quiet", *args], cwd=workdir, env=env, capture_output=True,
                       text=True)
    wall = time.monotonic() - started
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else {}
    except ValueError:
        out = {}
    if p.returncode != 0 and not out.get("verdict"):
        out["verdict"] = "error"
        out["reason"] = "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:])
    return out, wall


def speed_ratio(out):
    """mean_b / mean_c (verify gives "speedup" only when faster)."""
    b, c = out.get("baseline_stats") or {}, out.get("candidate_stats") or {}
    if b.get("mean_ms") and c.get("mean_ms"):
        return b["mean_ms"] / c["mean_ms"]
    return None


def pvalue(out):
    p = (out.get("welch") or {}).get("p_value")
    return "-" if p is None else "%.2g" % p


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hotkernel")
    ap.add_argument("--session", type=int, default=20, help="verifies in the directory's session")
    ap.add_argument("--alone", type=int, default=20, help="verifies with --no-session")
    ap.add_argument("--n", type=int, default=5, help="pairs per verify (the issue's n=5)")
    ap.add_argument("--out", default=os.environ.get("OUT"), help="folder for the per-verify log (JSON lines)")
    args = ap.parse_args()
    hotkernel = find_hotkernel(args.hotkernel)
    env = dict(os.environ)
    env.setdefault("HOTKERNEL_PYTHON", "/usr/bin/python3")
    alone = dict(env, HOTKERNEL_NO_SESSION="1")
    workdir = tempfile.mkdtemp(prefix="hotkernel-aa-cpu-")
    log = open(os.path.join(args.out, "aa_cpu.jsonl"), "w") if args.out else None
    rows = {}
    serve = None
    try:
        out, _ = cli(hotkernel, workdir, alone, "new", "gelu", "--from", "torch.nn.functional:gelu", "--shape",
                     "1024x2048", "--dtype", "fp32", "--device", "cpu", "--iters", "20")
        if out.get("verdict") == "error":
            sys.exit("aa_cpu: hotkernel new failed: %s" % out.get("reason"))
        plan = []
        if args.session:
            plan.append(("in a session", env, args.session))
        if args.alone:
            plan.append(("alone (--no-session)", alone, args.alone))
        for label, how, count in plan:
            if how is env:
                serve = subprocess.Popen([hotkernel, "serve"], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            verdicts = {}
            speedups = []
            for i in range(count):
                load = load_average()
                out, wall = cli(hotkernel, workdir, how, "verify", "gelu_baseline.py", "gelu_candidate.py", "-n",
                                str(args.n))
                verdict = out.get("verdict")
                verdicts[verdict] = verdicts.get(verdict, 0) + 1
                ratio = speed_ratio(out)
                if ratio is not None:
                    speedups.append(ratio)
                ci = out.get("speedup_ci95")
                print("%-22s %2d/%d %-12s mean_b/mean_c %-6s ci95 %-15s p %-8s load %s  %.1f s" % (
                    label, i + 1, count, verdict, "-" if ratio is None else "%.3f" % ratio,
                    "-" if not ci else "[%.3f, %.3f]" % tuple(ci), pvalue(out), load, wall), flush=True)
                if log:
                    log.write(json.dumps({"mode": label, "i": i, "wall_s": wall, "load": load, "result": out}) + "\n")
                    log.flush()
            if serve is not None:
                serve.terminate()
                serve.wait(30)
                serve = None
            rows[label] = (count, verdicts, speedups)
    finally:
        if serve is not None:
            serve.terminate()
            serve.wait(30)
        shutil.rmtree(workdir, ignore_errors=True)
    print()
    print("A/A on CPU (%s, %s, %d cores, load %s at the end): gelu 1024x2048 fp32, iters 20, n=%d" % (
        hotkernel, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(), load_average(), args.n))
    print("| where | verifies | false (faster or slower) | inconclusive | other | mean_b/mean_c |")
    print("|---|---|---|---|---|---|")
    false_total = 0
    for label, (count, verdicts, speedups) in rows.items():
        false = verdicts.get("faster", 0) + verdicts.get("slower", 0)
        false_total += false
        other = count - false - verdicts.get("inconclusive", 0)
        spread = "%.3f-%.3f" % (min(speedups), max(speedups)) if speedups else "-"
        print("| %s | %d | %d (faster %d, slower %d) | %d | %d | %s |" % (
            label, count, false, verdicts.get("faster", 0), verdicts.get("slower", 0),
            verdicts.get("inconclusive", 0), other, spread))
    return 1 if false_total else 0


if __name__ == "__main__":
    sys.exit(main())
