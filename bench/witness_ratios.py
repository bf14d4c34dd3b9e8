#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Honest runs' reported time over their GPU witness: the measurement behind WitnessTrace's
kMinReportedOverBusy and kMaxReportedOverSpan (core/measure/witnesstrace.h, issue 41), and the
bracketed window's span over the core's bracket and the timed windows' time per call over the
bracketed window's, behind BracketClock's kMinWitnessedOverBracket and kMinTimedOverBracketed
(protocol 5).

    python3 bench/witness_ratios.py RESULT [RESULT ...] [--margin 0.05]

Each RESULT is a `hotkernel --json verify` output (one JSON object), a JSON-lines file of them or
of bench logs that wrap one as {"result": ...} (bench/aa_gpu.py's), or a folder of such files
(*.json, *.jsonl, read recursively). From every verify it takes `witness_ratios`: per measured pair
and side, the reported ms per call over the witness's busy ms per call (the union of the kernels'
intervals) and over its span per call (first kernel's start to last kernel's end). Results from
before `witness_ratios` existed give the last pair's ratio from `witness` and the stats' last sample.

Prints, per side (baseline, candidate) and together, the distribution of each ratio (count, min,
1st percentile, median, 99th percentile, max), the verifies whose ratios lie furthest out, and
suggested bounds: the lowest reported/busy less --margin, the highest reported/span plus --margin.
Verifies whose reason names the witness are listed: on honest scripts each is a false accusation.
Feed it honest verifies only (the five examples, the honest corpus): a cheat's ratio is what the
bounds are there to refuse.
"""
import argparse
import json
import math
import os
import sys

SIDES = ("baseline", "candidate")
RATIOS = ("reported_over_busy", "reported_over_span", "witnessed_over_bracket", "timed_over_bracketed")


def results_in(path):
    """Every verify result in a file or folder, as (where, result)."""
    if os.path.isdir(path):
        for root, _, files in sorted(os.walk(path)):
            for name in sorted(files):
                if name.endswith((".json", ".jsonl")):
                    yield from results_in(os.path.join(root, name))
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        documents = [json.loads(text)]
    except ValueError:  # JSON lines
        documents = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    documents.append(json.loads(line))
                except ValueError:
                    print("witness_ratios: %s:%d is not JSON, skipped" % (path, number), file=sys.stderr)
    for i, doc in enumerate(documents):
        if isinstance(doc, dict) and isinstance(doc.get("result"), dict):
            doc = doc["result"]
        if isinstance(doc, dict) and doc.get("tool") == "verify":
            yield ("%s[%d]" % (path, i) if len(documents) > 1 else path), doc


def ratios_of(result):
    """{side: {ratio: [values]}} of one verify result."""
    out = {side: {r: [] for r in RATIOS} for side in SIDES}
    per_pair = result.get("witness_ratios")
    if isinstance(per_pair, dict):
        for side in SIDES:
            for r in RATIOS:
                out[side][r] = [v for v in (per_pair.get(side) or {}).get(r, []) if isinstance(v, (int, float))]
        return out
    # Older results: the last pair's witness against the last measured sample.
    for side in SIDES:
        w = (result.get("witness") or {}).get(side) or {}
        samples = (result.get(side + "_stats") or {}).get("samples_ms") or []
        reported = w.get("reported_ms_per_call", samples[-1] if samples else None)
        if not isinstance(reported, (int, float)):
            continue
        for r, key in zip(RATIOS[:2], ("busy_ms_per_call", "span_ms_per_call")):
            if isinstance(w.get(key), (int, float)) and w[key] > 0:
                out[side][r].append(reported / w[key])
    return out


def quantile(values, q):
    s = sorted(values)
    if not s:
        return math.nan
    k = (len(s) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def row(label, values):
    if not values:
        return "%-28s %6d" % (label, 0)
    return "%-28s %6d %8.4f %8.4f %8.4f %8.4f %8.4f" % (
        label, len(values), min(values), quantile(values, 0.01), quantile(values, 0.5), quantile(values, 0.99),
        max(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+", help="verify --json outputs: files or folders")
    ap.add_argument("--margin", type=float, default=0.05, help="added outside the extremes for the bounds")
    args = ap.parse_args()

    pooled = {side: {r: [] for r in RATIOS} for side in SIDES}
    extremes = []  # (ratio, value, side, where, target)
    verifies = 0
    verdicts = {}
    refused = []  # honest verifies the witness refused: the bounds or the sequence checks are wrong
    for path in args.results:
        if not os.path.exists(path):
            sys.exit("witness_ratios: %s does not exist" % path)
        for where, result in results_in(path):
            verifies += 1
            target = result.get("target")
            verdicts[result.get("verdict")] = verdicts.get(result.get("verdict"), 0) + 1
            if "witness" in str(result.get("reason") or ""):
                refused.append("%s (%s): %s" % (where, target, str(result.get("reason"))[:300]))
            for side, by_ratio in ratios_of(result).items():
                for r, values in by_ratio.items():
                    pooled[side][r].extend(values)
                    extremes.extend((r, v, side, where, target) for v in values)
    if not any(pooled[s][r] for s in SIDES for r in RATIOS):
        sys.exit("witness_ratios: no witnessed measured pair in %d verify result(s): were they CUDA verifies "
                 "with hotkernel's tracer loaded?" % verifies)

    print("%d verify result(s): %s" % (verifies, ", ".join("%s %d" % (v, n) for v, n in sorted(
        verdicts.items(), key=lambda vn: str(vn[0])))))
    for line in refused:
        print("refused by the witness: " + line)
    print("%-28s %6s %8s %8s %8s %8s %8s" % ("ratio / side", "n", "min", "p1", "median", "p99", "max"))
    for r in RATIOS:
        for side in SIDES:
            print(row("%s %s" % (r, side), pooled[side][r]))
        print(row("%s both" % r, pooled["baseline"][r] + pooled["candidate"][r]))
    for r, pick, word in (("reported_over_busy", min, "lowest"), ("reported_over_span", max, "highest")):
        mine = [e for e in extremes if e[0] == r]
        if mine:
            _, v, side, where, target = pick(mine, key=lambda e: e[1])
            print("%s %s: %.4f (%s, %s, %s)" % (word, r, v, side, target, where))

    low = min(pooled["baseline"]["reported_over_busy"] + pooled["candidate"]["reported_over_busy"], default=None)
    high = max(pooled["baseline"]["reported_over_span"] + pooled["candidate"]["reported_over_span"], default=None)
    print("suggested bounds (core/measure/witnesstrace.h):")
    if low is not None:
        print("  kMinReportedOverBusy = %.2f   (lowest honest %.4f - margin %.2f)" %
              (math.floor((low - args.margin) * 100) / 100, low, args.margin))
    if high is not None:
        print("  kMaxReportedOverSpan = %.2f   (highest honest %.4f + margin %.2f)" %
              (math.ceil((high + args.margin) * 100) / 100, high, args.margin))
    for r, name in (("witnessed_over_bracket", "kMinWitnessedOverBracket"),
                    ("timed_over_bracketed", "kMinTimedOverBracketed")):
        low = min(pooled["baseline"][r] + pooled["candidate"][r], default=None)
        if low is not None:
            print("  %s = %.2f   (lowest honest %.4f - margin %.2f; core/measure/bracketclock.h)" %
                  (name, math.floor((low - args.margin) * 100) / 100, low, args.margin))


if __name__ == "__main__":
    main()
