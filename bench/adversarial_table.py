#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issues 19 and 25 on the GPU machine: `hotkernel verify` on each GPU adversarial candidate of
tests/data/adversarial/gpu against the rmsnorm-sized baseline there, printed as a table
(fixture, expected, verdict, reported speedup, verify wall time, of which the judge outside the
candidate's process, what confined the candidate (issue 41), reason). Exits 1 when any fixture gets a verdict other than the expected one.

    python3 bench/adversarial_table.py [--hotkernel build/release/app/hotkernel] [--python PYTHON] [--n 3]

For the verdicts before a change, pass an older binary and the contract it shipped:
    --hotkernel OLD/hotkernel --contract <(git show REV:resources/contract/_hotkernel_contract.py)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

EXPECTED = [
    ("honest.py", "faster/slower/inconclusive"),
    ("ptrversion_cache.py", "incorrect/invalid"),
    ("graph_capture_cache.py", "incorrect/invalid"),
    ("event_patch.py", "invalid"),
    ("l2_persist.py", "invalid"),
    ("graph_node_l2.py", "invalid"),
    ("lazy_subclass.py", "invalid"),
    ("unjoined_stream.py", "invalid"),
    # Honest but not capturable: both sides timed with events (issue 19's comparable timers).
    ("uncapturable.py", "faster/slower/inconclusive"),
    ("samples_thread.py", "invalid"),
    ("tracer_evade.py", "invalid"),
    ("subprocess_line.py", "invalid"),
    # The floor on the card: an honest kernel against a target claiming 64x the bytes it moves.
    ("overstated_bytes.py", "invalid", "overstated_baseline.py"),
    # Protocol 4: the checks in the candidate's process pass; the judge outside it catches these.
    ("reference_swap.py", "incorrect"),
    ("check_patch.py", "incorrect/invalid"),
    ("judge_file_truncate.py", "invalid"),
    # Issue 41: a planted calibration does not lift the floor; --fresh gets its seed after capture.
    ("calibration_plant.py", "invalid", "overstated_baseline.py"),
    ("seed_snoop.py", "incorrect", "rmsnorm_baseline.py", ["--fresh"]),
    # Issue 41: workers write only their scratch (their caches included). Honest compilers keep
    # their verdicts; writes beside the target, into default caches or through hotkernel itself fail.
    ("triton_cache_honest.py", "faster/slower/inconclusive"),
    ("compile_cache_honest.py", "faster/slower/inconclusive"),
    ("triton_cache_honest.py", "faster/slower/inconclusive", "rmsnorm_baseline.py", ["--fresh"]),
    ("cache_poison.py", "faster/slower/inconclusive"),
    ("calibrate_run.py", "invalid", "overstated_baseline.py"),
    # Issue 41, class 1: the reported times scaled by 0.8, no function the integrity snapshot covers
    # replaced. Protocol 5: the time is the witness's, so what the process prints changes nothing
    # (fn is the baseline's: inconclusive); a line whose ms is not its samples' median is invalid.
    ("scaled_encoder.py", "inconclusive"),
    ("scaled_median.py", "invalid"),
    ("scaled_profile.py", "inconclusive"),
    ("scaled_relay.py", "inconclusive"),
    # Issue 41, class 2: the witness itself forged (times scaled by 0.8 to match, except silence).
    # Relayed with its records' intervals compressed, numbers kept; written whole by a stand-in for
    # the tracer's window function: both agree with the report, so only protocol 5's bracket is
    # left (expected faster before it). A second window appended, or the tracer silenced: invalid.
    ("witness_relay.py", "invalid"),
    ("witness_forge.py", "invalid"),
    ("witness_append.py", "invalid"),
    ("witness_silence.py", "invalid"),
    # Issue 41, class 5: a child of the candidate keeps the GPU busy while the candidate is idle.
    # fn is the baseline's own: once the candidate's tree is frozen during the baseline's runs, equal.
    ("idle_hog.py", "inconclusive/slower"),
    # Issue 41, class 8, against a Triton baseline far from its floor (the control first): rows whose
    # inputs did not change since the last replay (skip_unchanged.py, a ninth: under the witness's
    # 0.85 bound) or the last call on the same memory (skip_repeated.py, a fifth) are skipped.
    # Protocol 5 refills the inputs between timed replays, which reaches the first; the second
    # skips within one replay (each rotated set comes back about 16 times in a block), which that
    # refill does not reach: see its docstring.
    ("slow_honest.py", "faster/slower/inconclusive", "rmsnorm_slow_baseline.py"),
    ("skip_unchanged.py", "inconclusive/slower", "rmsnorm_slow_baseline.py"),
    ("skip_repeated.py", "inconclusive/slower", "rmsnorm_slow_baseline.py"),
]
# Issue 41: what no confined candidate may leave beside the target (checked after every fixture).
PLANTED = ["results", "rmsnorm_baseline_poison.py"]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hotkernel", default=os.path.join(root, "build", "release", "app", "hotkernel"))
    p.add_argument("--python", default=os.environ.get("HOTKERNEL_PYTHON"),
                   help="the interpreter with CUDA torch (default: HOTKERNEL_PYTHON, else hotkernel's choice)")
    p.add_argument("--n", type=int, default=3)
    p.add_argument("--only", help="run this one fixture (e.g. l2_persist.py)")
    p.add_argument("--contract", default=os.path.join(root, "resources", "contract", "_hotkernel_contract.py"),
                   help="the contract to vendor beside the fixtures (default: this tree's)")
    args = p.parse_args()
    if not os.path.isfile(args.hotkernel):
        sys.exit("no hotkernel binary at %s: build it (packaging/build.sh) or pass --hotkernel" % args.hotkernel)
    fixtures = os.path.join(root, "tests", "data", "adversarial", "gpu")
    env = dict(os.environ, HOTKERNEL_NO_SESSION="1")  # each verify a process of its own, as before sessions (issue 23)
    env["HOTKERNEL_BINARY"] = os.path.abspath(args.hotkernel)  # calibrate_run.py calls it
    if args.python:
        env["HOTKERNEL_PYTHON"] = args.python
    rows, bad = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in os.listdir(fixtures):
            shutil.copy(os.path.join(fixtures, name), tmp)
        with open(args.contract, "rb") as src, open(os.path.join(tmp, "_hotkernel_contract.py"), "wb") as dst:
            dst.write(src.read())
        for fixture, expected, *rest in EXPECTED:
            if args.only and fixture != args.only:
                continue
            against = rest[0] if rest else "rmsnorm_baseline.py"
            extra = rest[1] if len(rest) > 1 else []
            r = {}
            proc = subprocess.run([args.hotkernel, "verify", against, fixture, "--n", str(args.n),
                                   "--json"] + extra, cwd=tmp, env=env, capture_output=True, text=True)
            try:
                r = json.loads(proc.stdout)
                verdict, speedup = r.get("verdict") or "error", r.get("speedup")
                reason = r.get("reason") or r.get("error") or ""
                timers = r.get("timers") or {}
                if timers.get("events_for_both_from_run") is not None:
                    reason = "timers %s/%s, events for both from run %s; %s" % (
                        timers.get("baseline"), timers.get("candidate"), timers["events_for_both_from_run"], reason)
                cost = "%.2f s (judge %.2f s, %d runs)" % (r.get("wall_s") or 0, (r.get("outside_judge") or {}).get(
                    "wall_s") or 0, (r.get("outside_judge") or {}).get("runs_judged") or 0)
            except ValueError:
                verdict, speedup, reason = "error", None, (proc.stderr or proc.stdout).strip()[-200:]
                cost = "-"
            ok = verdict in expected.split("/")
            # Issue 41: the confinement the supervisor reported for the candidate; a fixture that
            # left something beside the target fails whatever its verdict.
            confined = (r.get("confinement") or {}).get("candidate") or "-" if isinstance(r, dict) else "-"
            planted = [p for p in PLANTED if os.path.exists(os.path.join(tmp, p))]
            if planted:
                ok = False
                reason = "left %s beside the target; %s" % (", ".join(planted), reason)
                for p in planted:
                    path = os.path.join(tmp, p)
                    shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
            bad += not ok
            name = " ".join([fixture] + extra)
            rows.append((name, expected, verdict, "-" if speedup is None else "%.3gx" % speedup, cost, confined,
                         ("" if ok else "UNEXPECTED: ") + reason.replace("\n", " ")[:300]))
            # As it comes too (stderr), so that a run cut short still shows what it had.
            print("  ".join(str(c) for c in rows[-1]), file=sys.stderr, flush=True)
    head = ("fixture", "expected", "verdict", "speedup", "wall (judge)", "candidate confined", "reason")
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(6)]
    print("| " + " | ".join(head) + " |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(c).ljust(widths[i]) if i < 6 else c for i, c in enumerate(r)) + " |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
