#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How fast and how trustworthy is `hotkernel verify` on this GPU? Prints one table.

Runs on the GPU machine with the built `hotkernel` binary and a torch + Triton interpreter
(HOTKERNEL_PYTHON or the first python3 on PATH that imports torch). Self-contained: it writes its
own rmsnorm kernels (4096x8192 bf16: an eager baseline, a Triton candidate, and a Triton kernel
that redoes a fraction of its rows, to be deliberately ~3% slower) into a scratch folder and makes
the targets with `hotkernel new`. Measures:
  1. verify wall time: --fresh -n 7, warm -n 7, warm adaptive (eager baseline vs Triton candidate)
  2. N baseline-against-itself verifies (warm, adaptive): how many said faster or slower
  3. M verifies of the Triton kernel against its slowed copy: how many said slower
Each verify is one `hotkernel` process, so every one pays the workers' start (torch + CUDA, ~5 s,
both sides in parallel). A time guard shrinks sections 2 and 3 if the budget would be exceeded.

usage: bench/verify_speed.py [--hotkernel build/dev/app/hotkernel] [--aa 20] [--slow 10]
                             [--slow-fraction 0.03] [--budget 450] [--keep]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

KERNELS = r'''
# SPDX-License-Identifier: Apache-2.0
"""rmsnorm for bench/verify_speed.py: eager baseline, Triton candidate, and a slowed Triton copy."""
import os

import torch
import triton
import triton.language as tl


def rmsnorm_eager(x, w, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


@triton.jit
def _rmsnorm_rows(x_ptr, w_ptr, y_ptr, n_rows, n_cols, eps, BLOCK: tl.constexpr):
    # Programs past n_rows redo rows from the top (same values to the same place): extra work only.
    row = (tl.program_id(0) % n_rows).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * n_cols + cols, (x * inv * w).to(y_ptr.dtype.element_ty), mask=mask)


def _launch(x, w, extra_fraction, eps=1e-6):
    x = x.contiguous()
    y = torch.empty_like(x)
    rows, cols = x.shape
    grid = rows + int(round(rows * extra_fraction))
    _rmsnorm_rows[(grid,)](x, w, y, rows, cols, eps, BLOCK=triton.next_power_of_2(cols), num_warps=16)
    return y


def rmsnorm_triton(x, w):
    return _launch(x, w, 0.0)


def rmsnorm_triton_slow(x, w):
    return _launch(x, w, float(os.environ.get("VERIFY_SPEED_SLOW_FRACTION", "0.03")))
'''


def find_hotkernel(given):
    for candidate in [given, os.environ.get("HOTKERNEL_BINARY"), "build/dev/app/hotkernel",
                      "build/release/app/hotkernel", shutil.which("hotkernel")]:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    sys.exit("verify_speed: no hotkernel binary found; pass --hotkernel PATH")


def with_fn(candidate_path, out_path, import_line):
    """Copies a generated candidate, redefining fn just before the main() call."""
    text = open(candidate_path).read()
    marker = 'if __name__ == "__main__":'
    if marker not in text:
        sys.exit(f"verify_speed: {candidate_path} has no {marker!r} line; did the contract change?")
    text = text.replace(marker, import_line + "\n\n\n" + marker, 1)
    with open(out_path, "w") as f:
        f.write(text)


class Runner:
    def __init__(self, hotkernel, workdir, env):
        self.hotkernel, self.workdir, self.env = hotkernel, workdir, env

    def run(self, *args):
        started = time.monotonic()
        p = subprocess.run([self.hotkernel, "--json", "--quiet", *args], cwd=self.workdir, env=self.env,
                           capture_output=True, text=True)
        wall = time.monotonic() - started
        try:
            out = json.loads(p.stdout) if p.stdout.strip() else {}
        except json.JSONDecodeError:
            out = {}
        if p.returncode != 0:
            sys.stderr.write(f"hotkernel {' '.join(args)} failed ({p.returncode}):\n{p.stderr[-3000:]}\n")
        return out, wall, p.returncode

    def verify(self, baseline, candidate, *options):
        return self.run("verify", baseline, candidate, *options)


def fmt_ci(v):
    return f"[{v[0]:.4f}, {v[1]:.4f}]" if isinstance(v, list) else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hotkernel", help="path of the hotkernel binary")
    ap.add_argument("--aa", type=int, default=20, help="baseline-against-itself verifies")
    ap.add_argument("--slow", type=int, default=10, help="verifies of the deliberately slower candidate")
    ap.add_argument("--slow-fraction", type=float, default=0.03, help="extra rows the slow kernel redoes")
    ap.add_argument("--budget", type=float, default=450, help="seconds; later sections shrink to fit")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = ap.parse_args()

    hotkernel = find_hotkernel(args.hotkernel)
    workdir = tempfile.mkdtemp(prefix="verify_speed_")
    # Each verify a process of its own (issue 23's sessions are measured by bench/session_speed.py).
    env = dict(os.environ, VERIFY_SPEED_SLOW_FRACTION=str(args.slow_fraction), HOTKERNEL_NO_SESSION="1")
    run = Runner(hotkernel, workdir, env)
    t0 = time.monotonic()
    rows = []  # (section, what, wall_s, n, verdict, speedup, ci99, mode, reused)
    phases = {}  # label -> verify's own phases_s (where its wall time went)

    def left():
        return args.budget - (time.monotonic() - t0)

    try:
        with open(os.path.join(workdir, "kernels_speed.py"), "w") as f:
            f.write(KERNELS)
        common = ["--shape", "4096x8192", "--extra", "w:8192", "--rotate", "x", "--dtype", "bf16",
                  "--flops", "134217728", "--out-dir", "."]
        for name, fn in [("rmsnorm", "rmsnorm_eager"), ("rmsnormt", "rmsnorm_triton")]:
            out, _, rc = run.run("new", name, "--from", f"./kernels_speed.py:{fn}", *common)
            if rc != 0:
                sys.exit(f"verify_speed: hotkernel new {name} failed")
        with_fn(os.path.join(workdir, "rmsnorm_candidate.py"), os.path.join(workdir, "rmsnorm_triton_candidate.py"),
                "from kernels_speed import rmsnorm_triton as fn  # noqa: E402")
        with_fn(os.path.join(workdir, "rmsnormt_candidate.py"), os.path.join(workdir, "rmsnormt_slow_candidate.py"),
                "from kernels_speed import rmsnorm_triton_slow as fn  # noqa: E402")

        # What the kernels cost on their own (and how much slower the slowed copy really is).
        bench = {}
        for script in ["rmsnorm_baseline.py", "rmsnormt_baseline.py", "rmsnormt_slow_candidate.py"]:
            out, wall, rc = run.run("bench", script, "-n", "5")
            bench[script] = out.get("stats", {}).get("mean_ms")
            print(f"bench {script}: {bench[script]} ms ({wall:.1f} s wall)", file=sys.stderr)

        # 1. wall time of one verify, three ways.
        for label, opts in [("fresh -n 7", ["-n", "7", "--fresh"]), ("warm -n 7", ["-n", "7"]),
                            ("warm adaptive", [])]:
            out, wall, rc = run.verify("rmsnorm_baseline.py", "rmsnorm_triton_candidate.py", *opts)
            rows.append(("1 eager vs triton", label, wall, out.get("n"), out.get("verdict", f"error {rc}"),
                         out.get("speedup"), out.get("speedup_ci99"), out.get("mode"), out.get("workers_reused")))
            phases[label] = out.get("phases_s")

        # 2. baseline against itself.
        aa = {"faster": 0, "slower": 0, "inconclusive": 0, "other": 0}
        aa_walls, aa_n = [], []
        per = rows[-1][2] if rows else 10.0
        for i in range(args.aa):
            if left() < per * (1 + args.slow):
                print(f"verify_speed: time budget: stopped A/A after {i} verifies", file=sys.stderr)
                break
            out, wall, rc = run.verify("rmsnorm_baseline.py", "rmsnorm_baseline.py")
            v = out.get("verdict", "other")
            aa[v if v in aa else "other"] += 1
            aa_walls.append(wall)
            aa_n.append(out.get("n") or 0)

        # 3. deliberately slower candidate.
        slow = {"slower": 0, "faster": 0, "inconclusive": 0, "other": 0}
        slow_ratios, slow_walls = [], []
        for i in range(args.slow):
            if left() < per:
                print(f"verify_speed: time budget: stopped the slow test after {i} verifies", file=sys.stderr)
                break
            out, wall, rc = run.verify("rmsnormt_baseline.py", "rmsnormt_slow_candidate.py")
            v = out.get("verdict", "other")
            slow[v if v in slow else "other"] += 1
            slow_walls.append(wall)
            b, c = out.get("baseline_stats", {}).get("mean_ms"), out.get("candidate_stats", {}).get("mean_ms")
            if b and c:
                slow_ratios.append(c / b)
    finally:
        if args.keep:
            print(f"scratch folder kept: {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    print(f"hotkernel verify speed and trust ({hotkernel}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    print()
    print("bench means (ms): eager rmsnorm %s, triton %s, triton slowed by %.0f%% rows %s" % (
        bench.get("rmsnorm_baseline.py"), bench.get("rmsnormt_baseline.py"), args.slow_fraction * 100,
        bench.get("rmsnormt_slow_candidate.py")))
    print()
    print(f"| {'verify (eager vs Triton rmsnorm 4096x8192 bf16)':48} | {'wall s':>7} | {'n':>3} | {'verdict':12} | {'speedup':>8} | {'99% interval':18} |")
    print(f"|{'-' * 50}|{'-' * 9}|{'-' * 5}|{'-' * 14}|{'-' * 10}|{'-' * 20}|")
    for section, label, wall, n, verdict, speedup, ci99, mode, reused in rows:
        sp = f"{speedup:.3f}" if isinstance(speedup, (int, float)) else "-"
        print(f"| {label:48} | {wall:7.1f} | {str(n):>3} | {str(verdict):12} | {sp:>8} | {fmt_ci(ci99):18} |")
    print()
    for label, ph in phases.items():
        if isinstance(ph, dict):
            print(f"phases of '{label}' (s): " + ", ".join(f"{k} {v:.2f}" for k, v in ph.items()))
    print()
    total_aa = sum(aa.values())
    mean = lambda v: sum(v) / len(v) if v else float("nan")  # noqa: E731
    print(f"| {'test':48} | {'count':>22} | {'mean wall s':>11} | {'mean n':>6} |")
    print(f"|{'-' * 50}|{'-' * 24}|{'-' * 13}|{'-' * 8}|")
    print(f"| {'baseline vs itself, warm adaptive: faster+slower':48} | "
          f"{aa['faster'] + aa['slower']:>3} of {total_aa:<3} (f {aa['faster']}, s {aa['slower']}, ?{aa['other']}) | "
          f"{mean(aa_walls):11.1f} | {mean(aa_n):6.1f} |")
    total_slow = sum(slow.values())
    print(f"| {'~%.0f%% slower candidate: said slower' % (args.slow_fraction * 100):48} | "
          f"{slow['slower']:>3} of {total_slow:<3} (measured x{mean(slow_ratios):.4f})  | "
          f"{mean(slow_walls):11.1f} | {'':6} |")
    print()
    print(f"goals: warm n=7 <= 10 s; A/A faster+slower <= 1 of 20; slower >= 9 of 10. total {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
