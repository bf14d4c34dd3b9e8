#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 41, "the other side stands still", on the GPU machine: how small a competing GPU load of
the candidate's child process shows in the per-run checks, and what it does to the verdict.

    python3 bench/freeze_detect.py --hotkernel /tmp/hk/bin/hotkernel [--python PYTHON] [--n 7]
                                   [--loads 0:0,10:0,25:0,50:0,100:0,25:2,50:2,100:2,100:5]
                                   [--before OLD/hotkernel]

The baseline is tests/data/adversarial/gpu/rmsnorm_baseline.py; each candidate is the same honest
fn (so the speedup should be 1.0) whose script first starts a child process in a session of its own
(`setsid`, which the supervisor keeps below it). The child loads the GPU with matmuls at a duty
cycle D% of each 100 ms period, and keeps up to Q periods of that work queued ahead on the GPU
(LOAD = D:Q). While the baseline runs the child is stopped with the candidate; work it queued
before the stop still runs (Q > 0 queues more), which is what NVML's per-process samples of the
stopped side must show. 0:0 starts no child: the honest control, whose dropped pairs are false
alarms.

Prints a table, one row per load (and per binary with --before): verdict, speedup, the pairs whose
stopped side computed (named by run_conditions), pairs apart in SM clock, pairs dropped, the
stopped runs per side, the SM clock range per side, NVML's sample period, the mean run wall time
per side (a run shorter than one sample period is not judged), and the reason. Exits 1 when the
honest control is not faster/slower/inconclusive or has a pair flagged.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

CHILD = r'''
# The competing load: D% of every 100 ms on the GPU, up to Q periods queued ahead.
import sys, time, torch
duty, ahead = float(sys.argv[1]) / 100.0, int(sys.argv[2])
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    a @ b
torch.cuda.synchronize()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(50):
    a @ b
end.record()
end.synchronize()
per_mm = start.elapsed_time(end) / 50  # ms
reps = max(1, int(round(duty * 100.0 / per_mm)))
queued = []
while True:
    t0 = time.monotonic()
    for _ in range(reps):
        a @ b
    done = torch.cuda.Event()
    done.record()
    queued.append(done)
    while len(queued) > ahead:
        queued.pop(0).synchronize()
    time.sleep(max(0.0, 0.1 - (time.monotonic() - t0)))
'''

CANDIDATE = r'''
# An honest fn whose script starts a competing GPU load in a child of its own session (issue 41).
import os, subprocess, sys
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.Popen([sys.executable, os.path.join(here, "freeze_load_child.py"), "{duty}", "{ahead}"],
                     start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    main(TARGET, fn)
'''


def summarize(r):
    conditions = r.get("run_conditions") or {}
    pairs = conditions.get("pairs") or []
    busy = [p for p in pairs if "stopped processes computed" in (p.get("problem") or "")]
    clock = [p for p in pairs if "SM clock" in (p.get("problem") or "")]
    frozen = r.get("frozen") or {}
    steps = r.get("steps_s") or {}
    runs = max(1, (r.get("n") or 0) + (r.get("warmup") or 0))

    def clocks(side):
        c = (conditions.get("sm_clock_mhz") or {}).get(side)
        return "%g-%g" % tuple(c) if c else "-"

    def run_ms(side):
        wall = (steps.get(side) or {}).get("run_wall")
        return "%.0f" % (wall / runs * 1000) if isinstance(wall, (int, float)) else "-"

    return {
        "verdict": r.get("verdict") or "error",
        "speedup": "-" if r.get("speedup") is None else "%.3f" % r["speedup"],
        "busy pairs": len(busy),
        "clock pairs": len(clock),
        "dropped": conditions.get("dropped_pairs", "-"),
        "stopped b/c": "%s/%s" % ((frozen.get("baseline") or {}).get("frozen_runs", "-"),
                                  (frozen.get("candidate") or {}).get("frozen_runs", "-")),
        "SM MHz b | c": "%s | %s" % (clocks("baseline"), clocks("candidate")),
        "period ms": conditions.get("nvml_sample_period_ms") or "-",
        "run ms b/c": "%s/%s" % (run_ms("baseline"), run_ms("candidate")),
        "card": "read" if conditions.get("card_read") else (conditions.get("why_not") or "-"),
        "reason": (r.get("reason") or r.get("error") or "").replace("\n", " ")[:160],
    }


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hotkernel", default=os.path.join(root, "build", "release", "app", "hotkernel"))
    p.add_argument("--before", help="an older hotkernel to run the same loads with (verdicts before)")
    p.add_argument("--python", default=os.environ.get("HOTKERNEL_PYTHON"),
                   help="the interpreter with CUDA torch (default: HOTKERNEL_PYTHON, else hotkernel's choice)")
    p.add_argument("--n", type=int, default=7)
    p.add_argument("--loads", default="0:0,10:0,25:0,50:0,100:0,25:2,50:2,100:2,100:5",
                   help="DUTY:QUEUED pairs: duty cycle in percent, periods of work queued ahead")
    p.add_argument("--contract", default=os.path.join(root, "resources", "contract", "_hotkernel_contract.py"))
    args = p.parse_args()
    binaries = [("after", args.hotkernel)] + ([("before", args.before)] if args.before else [])
    for _, binary in binaries:
        if not os.path.isfile(binary):
            sys.exit("no hotkernel binary at %s: build it or pass --hotkernel" % binary)
    env = dict(os.environ, HOTKERNEL_NO_SESSION="1")
    if args.python:
        env["HOTKERNEL_PYTHON"] = args.python
    loads = [tuple(int(v) for v in load.split(":")) for load in args.loads.split(",")]
    rows, bad = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(root, "tests", "data", "adversarial", "gpu", "rmsnorm_baseline.py"), tmp)
        shutil.copy(args.contract, os.path.join(tmp, "_hotkernel_contract.py"))
        with open(os.path.join(tmp, "freeze_load_child.py"), "w") as f:
            f.write(CHILD)
        for duty, ahead in loads:
            name = "freeze_load_%d_%d.py" % (duty, ahead)
            with open(os.path.join(tmp, name), "w") as f:
                if duty == 0:
                    f.write("from _hotkernel_contract import main\nfrom rmsnorm_baseline import TARGET, fn\n"
                            "if __name__ == '__main__':\n    main(TARGET, fn)\n")
                else:
                    f.write(CANDIDATE.replace("{duty}", str(duty)).replace("{ahead}", str(ahead)))
            for label, binary in binaries:
                proc = subprocess.run([binary, "verify", "rmsnorm_baseline.py", name, "--n", str(args.n), "--json"],
                                      cwd=tmp, env=env, capture_output=True, text=True)
                try:
                    row = summarize(json.loads(proc.stdout))
                except ValueError:
                    row = summarize({"error": (proc.stderr or proc.stdout).strip()[-160:]})
                load = "none (control)" if duty == 0 else "%d%% duty, %d queued" % (duty, ahead)
                row = dict({"load": load, "binary": label}, **row)
                if duty == 0 and label == "after" and (
                        row["verdict"] not in ("faster", "slower", "inconclusive") or row["busy pairs"]):
                    bad += 1
                    row["reason"] = "HONEST CONTROL FLAGGED: " + row["reason"]
                rows.append(row)
                print("  ".join(str(v) for v in row.values()), file=sys.stderr, flush=True)
    head = list(rows[0].keys())
    widths = [max(len(str(r[h])) for r in rows + [dict(zip(head, head))]) for h in head]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(str(r[h]).ljust(w) for h, w in zip(head, widths)) + " |")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
