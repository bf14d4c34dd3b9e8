# SPDX-License-Identifier: Apache-2.0
"""Verifies each example's kept candidate three times at n=7 against its baseline, through the
hotkernel CLI, and prints the README's before/after rows from those verifies. Run from the
repository root on a GPU machine with `hotkernel` on PATH (bench/reproduce_examples.sh sets that up
on the lent GPU machine):
    python3 bench/reproduce_examples.py [TARGET ...] [--record WHY] [--calibration FILE]
--record WHY records every verify with `hotkernel record` (note "kept candidate, reproduction i of 3
(n=7) after WHY", author: that of the target's last recorded reproduction), as the README's logs
were made. Without it nothing is written. The share of measured bandwidth divides the contract's
bytes per call by the candidate's mean time and by the calibrated device-copy rate of the card the
verifies ran on (the newest results/calibration/*.json of that card, unless --calibration names one).
"""
import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ["rmsnorm", "softmax", "gemv", "decode_attention", "int4_gemv"]
REPRODUCTION_NOTES = ("final candidate, reproduction", "kept candidate, reproduction")


def hotkernel(*args):
    """The JSON result of `hotkernel --json ARGS`, or None (with the reason printed)."""
    proc = subprocess.run(["hotkernel", "--json", *args], cwd=ROOT, capture_output=True, text=True)
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        result = None
    if result is None or "error" in result:
        print(f"!! hotkernel {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-800:]}\n{proc.stderr[-2000:]}",
              file=sys.stderr, flush=True)
        return None
    return result


def kept_who(target):
    """Who made the kept candidate: the author of its last recorded reproduction."""
    for path in sorted(glob.glob(os.path.join(ROOT, "results", target, "*.json")), reverse=True):
        with open(path) as fh:
            log = json.load(fh)
        if log.get("note", "").startswith(REPRODUCTION_NOTES):
            return log["who"]
    raise SystemExit(f"reproduce_examples: no recorded reproduction in results/{target}/ to take the author from")


def reproduce(target, record_why=None):
    """The three verifies of n=7 of the kept candidate (each recorded when record_why is given)."""
    results = []
    who = kept_who(target) if record_why else None
    for i in range(1, 4):
        # record accepts only a verify of its own process, so the CLI verifies and records in one call.
        recording = ()
        if record_why:
            note = f"kept candidate, reproduction {i} of 3 (n=7) after {record_why}"
            recording = ("--record", "--note", note, "--who", who)
        result = hotkernel("verify", f"examples/{target}_baseline.py", f"examples/{target}_candidate.py", "-n", "7",
                           *recording)
        if result is None:
            continue
        results.append(result)
        b, c = result["baseline_stats"]["mean_ms"] * 1000, result["candidate_stats"]["mean_ms"] * 1000
        print(f"{target:17s} {i}/3 {result['verdict']:8s} baseline {b:8.2f} us  candidate {c:8.2f} us  "
              f"speedup {result['speedup']:.3f}", flush=True)
        if record_why and not result.get("record"):
            print(f"!! {target} {i}/3 was not recorded (see the message above)", file=sys.stderr, flush=True)
    return results


def calibration_for(card, path=None):
    """(copy rate in GB/s, calibration file) of the card the verifies ran on: the newest
    results/calibration/*.json whose card is `card`, or the file --calibration names. (None, why)
    when there is none: another card's rate would give the share of a bandwidth the kernel never had
    (issue 42: the H200's rate made the H100's rmsnorm 68% instead of about 95%)."""
    if path is not None:
        with open(path) as fh:
            cal = json.load(fh)
        if card and cal.get("card") != card:
            print(f"!! {path} calibrates {cal.get('card')}, the verifies ran on {card}", file=sys.stderr, flush=True)
        return cal["figures"]["copy_gbs"]["value"], path
    mine = []
    for found in glob.glob(os.path.join(ROOT, "results", "calibration", "*.json")):
        with open(found) as fh:
            cal = json.load(fh)
        if cal.get("ok", True) and cal.get("card") == card:
            mine.append((cal.get("measured_at", ""), found, cal["figures"]["copy_gbs"]["value"]))
    if not mine:
        return None, f"no calibration of {card} in results/calibration/ (run hotkernel-calibrate there)"
    measured_at, found, rate = max(mine)
    return rate, found


def span(values, fmt):
    return (fmt % min(values)) + "-" + (fmt % max(values)) if values else "-"


def row(target, results, rate):
    """One row of the README's table: target | baseline mean | candidate mean | speedup | share."""
    base = [r["baseline_stats"]["mean_ms"] * 1000 for r in results]
    cand = [r["candidate_stats"]["mean_ms"] * 1000 for r in results]
    speed = [r["speedup"] for r in results]
    share = "-"
    if rate and results:
        nbytes = results[0]["contract"]["bytes"]
        shares = [nbytes / (c * 1e-6) / 1e9 / rate * 100 for c in cand]
        share = span(shares, "%.0f") + "%"
    return f"| {target} | {span(base, '%.2f')} us | {span(cand, '%.2f')} us | {span(speed, '%.3f')}x | {share} |"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("targets", nargs="*", metavar="TARGET", help="default: " + " ".join(TARGETS))
    parser.add_argument("--record", metavar="WHY")
    parser.add_argument("--calibration", metavar="FILE")
    args = parser.parse_args()
    unknown = [t for t in args.targets if t not in TARGETS]
    if unknown:
        parser.error("unknown target %s: the examples are %s" % (", ".join(unknown), " ".join(TARGETS)))
    verified = [(t, reproduce(t, args.record)) for t in args.targets or TARGETS]
    cards = sorted({r["contract"].get("device_name") for _, results in verified for r in results} - {None})
    card = cards[0] if len(cards) == 1 else None
    if len(cards) > 1:
        print(f"!! the verifies ran on several cards ({', '.join(cards)}): no share of bandwidth", file=sys.stderr)
    rate, source = calibration_for(card, args.calibration) if card or args.calibration else (None, "no card")
    rows = [row(t, results, rate) for t, results in verified]
    print(f"\n| target | baseline mean | candidate mean | speedup | share of measured bandwidth ({rate} GB/s) |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"card: {card}; copy rate from {os.path.relpath(source, ROOT) if rate else source}")
