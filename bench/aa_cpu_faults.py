#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 42: why the untouched CPU candidate came out slower than its own baseline. Runs the two
contract workers of the gelu 1024x2048 fp32 target (iters 20) directly, in verify's schedule (pair i
in the order b c for even i, c b for odd i; the candidate writes its judged outputs, the baseline
worker judges them before the next pair), and prints for every run its time and the minor page
faults the worker took during it (/proc/PID/stat), then the mean log ratio candidate/baseline and
the mean faults per run of each side. Give an older contract to see the behaviour before a change:

    python3 bench/aa_cpu_faults.py [--contract FILE] [--pairs 8] [--python /usr/bin/python3]
    python3 bench/aa_cpu_faults.py --contract <(git show REV:resources/contract/_hotkernel_contract.py)
"""
import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = '''from _hotkernel_contract import Input, Target, main
import torch
TARGET = Target("gelu", inputs=[Input("x", [1024, 2048])], dtype="fp32", iters=20, device="cpu")
def fn(x):
    return torch.nn.functional.gelu(x)
if __name__ == "__main__":
    main(TARGET, fn)
'''
CANDIDATE = '''from _hotkernel_contract import main
from gelu_baseline import TARGET
import torch
def fn(x):
    return torch.nn.functional.gelu(x)
if __name__ == "__main__":
    main(TARGET, fn)
'''


def minor_faults(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[7])


class Worker:
    def __init__(self, python, folder, script):
        self.proc = subprocess.Popen([python, script, "--worker"], cwd=folder, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("aa_cpu_faults: %s exited before its ready line" % script)
            if json.loads(line).get("event") == "ready":
                break

    def ask(self, request):
        """(answer, minor faults taken while answering)."""
        before = minor_faults(self.proc.pid)
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("event") != "judge_seed":
                return answer, minor_faults(self.proc.pid) - before

    def close(self):
        self.proc.kill()
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--contract", default=os.path.join(ROOT, "resources", "contract", "_hotkernel_contract.py"))
    ap.add_argument("--pairs", type=int, default=8, help="measured pairs (after one warm-up pair)")
    ap.add_argument("--python", default=os.environ.get("HOTKERNEL_PYTHON", "/usr/bin/python3"))
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="aa-cpu-faults-")
    try:
        with open(args.contract, "rb") as src, open(os.path.join(folder, "_hotkernel_contract.py"), "wb") as dst:
            dst.write(src.read())
        for name, text in (("gelu_baseline.py", BASELINE), ("gelu_candidate.py", CANDIDATE)):
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)
        judged = os.path.join(folder, "judged")
        os.mkdir(judged)
        b = Worker(args.python, folder, "gelu_baseline.py")
        c = Worker(args.python, folder, "gelu_candidate.py")
        ratios, faults = [], {"b": [], "c": []}
        print("pair order  baseline ms (faults)   candidate ms (faults)   c/b")
        for pair in range(args.pairs + 1):
            seed = random.getrandbits(50)
            lines = {}
            for side in ("bc" if pair % 2 == 0 else "cb"):
                if side == "b":
                    lines["b"] = b.ask({"op": "run", "run": pair, "judge_seed": seed})
                else:
                    lines["c"] = c.ask({"op": "run", "run": pair, "judge_seed": seed, "judge_dir": judged})
            b.ask({"op": "judge", "run": pair, "judge_seed": seed,
                   "judge_file": os.path.join(judged, "run-%d.judged" % pair)})
            (lb, fb), (lc, fc) = lines["b"], lines["c"]
            if lb.get("ms") is None or lc.get("ms") is None:
                sys.exit("aa_cpu_faults: a run failed: %s %s" % (lb.get("mismatch"), lc.get("mismatch")))
            print("%4d %s    %8.3f (%7d)     %8.3f (%7d)     %.3f%s" % (
                pair, "b c" if pair % 2 == 0 else "c b", lb["ms"], fb, lc["ms"], fc, lc["ms"] / lb["ms"],
                "  warm-up" if pair == 0 else ""), flush=True)
            if pair:
                ratios.append(math.log(lc["ms"] / lb["ms"]))
                faults["b"].append(fb)
                faults["c"].append(fc)
        b.close()
        c.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("contract %s: mean log(c/b) %.3f (c/b %.3f); minor faults per run: baseline %d, candidate %d" % (
        args.contract, statistics.mean(ratios), math.exp(statistics.mean(ratios)), statistics.mean(faults["b"]),
        statistics.mean(faults["c"])))


if __name__ == "__main__":
    main()
