#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 41 on the GPU machine: honest candidates verified with confined workers still get their
verdicts and their GPU witness. For each honest fixture of tests/data/adversarial/gpu (the
baseline's own fn, a Triton kernel compiled into the worker's private cache, torch.compile), warm
and with --fresh, prints the verdict, what confined each side, the witnessed kernels and busy time
per side, and the wall time. Exits 1 when a candidate ran unconfined, a side went unwitnessed, or a
verdict is invalid or incorrect.

    python3 bench/confinement_check.py [--hotkernel PATH] [--python PYTHON] [--n 5] [--out DIR]

From the unpacked bundle: `. /tmp/hk/env.sh` puts hotkernel on PATH. Each verify's JSON goes to
--out (default $OUT when set).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = ["honest.py", "triton_cache_honest.py", "compile_cache_honest.py"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hotkernel", default=shutil.which("hotkernel") or os.path.join(ROOT, "build", "release",
                                                                                  "app", "hotkernel"))
    p.add_argument("--python", default=os.environ.get("HOTKERNEL_PYTHON"))
    p.add_argument("--n", type=int, default=5)
    p.add_argument("--out", default=os.environ.get("OUT"))
    args = p.parse_args()
    env = dict(os.environ, HOTKERNEL_NO_SESSION="1")
    if args.python:
        env["HOTKERNEL_PYTHON"] = args.python
    fixtures = os.path.join(ROOT, "tests", "data", "adversarial", "gpu")
    bad = 0
    print("| candidate | mode | verdict | speedup | confined (baseline / candidate) | witness kernels b/c | "
          "busy ms/call b/c | wall s |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in os.listdir(fixtures):
            shutil.copy(os.path.join(fixtures, name), tmp)
        shutil.copy(os.path.join(ROOT, "resources", "contract", "_hotkernel_contract.py"), tmp)
        for fixture in FIXTURES:
            for extra in ([], ["--fresh"]):
                proc = subprocess.run([args.hotkernel, "verify", "rmsnorm_baseline.py", fixture, "--n", str(args.n),
                                       "--json"] + extra, cwd=tmp, env=env, capture_output=True, text=True)
                if args.out:
                    os.makedirs(args.out, exist_ok=True)
                    stem = os.path.join(args.out, "confinement-%s%s" % (fixture[:-3], "-fresh" if extra else ""))
                    with open(stem + ".json", "w") as f:
                        f.write(proc.stdout)
                    with open(stem + ".stderr", "w") as f:
                        f.write(proc.stderr[-20000:])
                try:
                    r = json.loads(proc.stdout)
                except ValueError:
                    bad += 1
                    print("| %s | %s | error | - | - | - | - | - |  %s" % (fixture, " ".join(extra) or "warm",
                                                                         proc.stderr.strip()[-300:]))
                    continue
                conf = r.get("confinement") or {}
                wit = r.get("witness") or {}
                sides = [wit.get("baseline") or {}, wit.get("candidate") or {}]
                problems = []
                if not str(conf.get("candidate", "")).startswith("landlock ABI"):
                    problems.append("candidate unconfined")
                if any(not s.get("kernels") for s in sides):
                    problems.append("a side unwitnessed")
                if r.get("verdict") in ("invalid", "incorrect", None):
                    problems.append(r.get("reason") or "no verdict")
                bad += bool(problems)
                print("| %s | %s | %s | %s | %s / %s | %s / %s | %s / %s | %.1f | %s" % (
                    fixture, " ".join(extra) or "warm", r.get("verdict"), r.get("speedup"), conf.get("baseline"),
                    conf.get("candidate"), sides[0].get("kernels"), sides[1].get("kernels"),
                    sides[0].get("busy_ms_per_call"), sides[1].get("busy_ms_per_call"), r.get("wall_s") or 0,
                    "; ".join(problems)), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
