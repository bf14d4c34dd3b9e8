#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 19, protocol 4 on the GPU machine: what the judge outside the candidate's process costs.
Runs `hotkernel verify NAME_baseline.py NAME_candidate.py --n N` REPEAT times for each example
target (examples/, the kept candidates), once with a binary from before protocol 4 and its
contract, once with this tree's, and prints a table: target, build, verdicts, median speedup,
median verify wall time, median time the judge took (after only). The issue's budget: the wall
time within 15% of before, the speedups the same within noise.

    python3 bench/judge_cost.py --before /path/to/old/hotkernel [--before-rev main] \\
        [--after build/release/app/hotkernel] [--n 7] [--repeat 3] [--only rmsnorm]

The two builds take turns (before, after) for each target within each repeat.

The before binary needs the contract it ships: --before-rev names the git revision whose
resources/contract/_hotkernel_contract.py it was built from (default main).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

TARGETS = ["rmsnorm", "softmax", "gemv", "decode_attention", "int4_gemv"]


def contract_at(root, rev):
    return subprocess.run(["git", "-C", root, "show", "%s:resources/contract/_hotkernel_contract.py" % rev],
                          check=True, capture_output=True).stdout


def verify(binary, work, target, n, env):
    proc = subprocess.run([binary, "verify", target + "_baseline.py", target + "_candidate.py", "--n", str(n),
                           "--json"], cwd=work, env=env, capture_output=True, text=True)
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return {"verdict": "error", "reason": (proc.stderr or proc.stdout).strip()[-200:]}


def measure(builds, examples, targets, n, repeat, env):
    """rows[label][target] = the results of `repeat` verifies. The builds take turns within each
    repeat and target, so that drift of the card over the minutes this takes hits both alike."""
    rows = {label: {t: [] for t in targets} for label, _, _ in builds}
    with tempfile.TemporaryDirectory() as tmp:
        works = {}
        for label, _, contract in builds:
            works[label] = os.path.join(tmp, label)
            shutil.copytree(examples, works[label])
            with open(os.path.join(works[label], "_hotkernel_contract.py"), "wb") as f:
                f.write(contract)
        for _ in range(repeat):
            for target in targets:
                for label, binary, _ in builds:
                    rows[label][target].append(verify(binary, works[label], target, n, env))
    return rows


def median(values):
    values = [v for v in values if isinstance(v, (int, float))]
    return statistics.median(values) if values else None


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", help="a hotkernel binary from before protocol 4 (left out: only after is run)")
    p.add_argument("--before-rev", default="main", help="the git revision the before binary was built from")
    p.add_argument("--before-contract", help="the before binary's contract as a file (instead of --before-rev, "
                                             "where there is no git checkout)")
    p.add_argument("--after", default=os.path.join(root, "build", "release", "app", "hotkernel"))
    p.add_argument("--n", type=int, default=7)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", help="one target (e.g. rmsnorm)")
    args = p.parse_args()
    targets = [args.only] if args.only else TARGETS
    examples = os.path.join(root, "examples")
    env = dict(os.environ, HOTKERNEL_NO_SESSION="1")  # each verify a process of its own, as before sessions (issue 23)
    builds = []
    if args.before:
        if args.before_contract:
            with open(args.before_contract, "rb") as f:
                builds.append(("before", args.before, f.read()))
        else:
            builds.append(("before", args.before, contract_at(root, args.before_rev)))
    with open(os.path.join(root, "resources", "contract", "_hotkernel_contract.py"), "rb") as f:
        builds.append(("after", args.after, f.read()))
    for label, binary, _ in builds:
        if not os.path.isfile(binary):
            sys.exit("no hotkernel binary at %s" % binary)
    rows = measure(builds, examples, targets, args.n, args.repeat, env)
    print("| target | build | verdicts | speedup (median) | wall s (median) | wall / before | judge s (median) "
          "| runs judged |")
    print("|---|---|---|---|---|---|---|---|")
    for target in targets:
        before_wall = median([r.get("wall_s") for r in rows["before"][target]]) if args.before else None
        for label, _, _ in builds:
            runs = rows[label][target]
            judge = [r.get("outside_judge") or {} for r in runs]
            speedup = median([r.get("speedup") for r in runs])
            wall = median([r.get("wall_s") for r in runs])
            print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                target, label, "/".join(r.get("verdict") or "?" for r in runs),
                "-" if speedup is None else "%.3fx" % speedup,
                "-" if wall is None else "%.2f" % wall,
                "%.3f" % (wall / before_wall) if wall and before_wall else "-",
                "-" if not any(judge) else "%.3f" % (median([j.get("wall_s") for j in judge]) or 0),
                "-" if not any(judge) else "/".join(str(j.get("runs_judged")) for j in judge)))
            for r in runs:
                if r.get("verdict") in ("error", "invalid", "incorrect"):
                    print("|   | %s | %s: %s |  |  |  |  |  |" % (label, r.get("verdict"), (r.get("reason") or "")[:200]))
    print_steps(rows, targets)
    return 0


def print_steps(rows, targets):
    """Where the after build's runs spend their time: the medians over repeats of the result's
    steps_s (the contract's steps, summed over a verify's runs), per side, in seconds."""
    print()
    print("| target | side | steps (s, median over repeats; summed over the verify's runs) |")
    print("|---|---|---|")
    for target in targets:
        runs = [r for r in rows.get("after", {}).get(target, []) if isinstance(r.get("steps_s"), dict)]
        for side in ("baseline", "candidate", "judge"):
            names = sorted({name for r in runs for name in (r["steps_s"].get(side) or {})})
            cells = ["%s %.3f" % (name, median([(r["steps_s"].get(side) or {}).get(name) for r in runs]) or 0)
                     for name in names]
            if cells:
                print("| %s | %s | %s |" % (target, side, ", ".join(cells)))


if __name__ == "__main__":
    sys.exit(main())
