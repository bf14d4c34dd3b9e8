#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 42 on the GPU machine: two hotkernel sessions on one card. Two folders, each with the
eager rmsnorm 4096x8192 bf16 and the Triton candidate (bench/verify_speed.py's kernels), each with a
`hotkernel serve` of its own (two spares each, as a window keeps). Each session verifies the Triton
candidate, one after the other, then both at once, then again one after the other; every verify
must get a verdict (faster), not an inconclusive blamed on the other session's idle workers.
Prints one table (session, round, verdict, speedup, wall time, reason), the warnings each verify
gave about the other session's processes (its spares asked to end, its workers named by that
session), and what nvidia-smi saw on the card; logs go to --out (default $OUT).

    python3 bench/two_sessions.py [--hotkernel PATH] [--open-wait 15] [--out DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aa_cpu import cli, find_hotkernel, speed_ratio  # noqa: E402
from verify_speed import KERNELS, with_fn  # noqa: E402

COMMON = ["--shape", "4096x8192", "--extra", "w:8192", "--rotate", "x", "--dtype", "bf16", "--out-dir", "."]


def prepare(hotkernel, workdir, env):
    with open(os.path.join(workdir, "kernels_speed.py"), "w") as f:
        f.write(KERNELS)
    out, _ = cli(hotkernel, workdir, env, "new", "rmsnorm", "--from", "./kernels_speed.py:rmsnorm_eager", *COMMON)
    if out.get("verdict") == "error":
        sys.exit("two_sessions: hotkernel new failed: %s" % out.get("reason"))
    with_fn(os.path.join(workdir, "rmsnorm_candidate.py"), os.path.join(workdir, "rmsnorm_triton_candidate.py"),
            "from kernels_speed import rmsnorm_triton as fn  # noqa: E402")


def compute_apps():
    p = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv,noheader"],
                       capture_output=True, text=True)
    return p.stdout.strip() or p.stderr.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hotkernel")
    ap.add_argument("--open-wait", type=float, default=15, help="seconds for both sessions to start their spares")
    ap.add_argument("--out", default=os.environ.get("OUT"))
    args = ap.parse_args()
    hotkernel = find_hotkernel(args.hotkernel)
    env = dict(os.environ)
    env.pop("HOTKERNEL_NO_SESSION", None)
    t0 = time.monotonic()
    dirs = {"A": tempfile.mkdtemp(prefix="hotkernel-session-a-"), "B": tempfile.mkdtemp(prefix="hotkernel-session-b-")}
    servers = {}
    rows = []
    session_warnings = []
    log = open(os.path.join(args.out, "two_sessions.jsonl"), "w") if args.out else None

    def verify(who, label):
        out, wall = cli(hotkernel, dirs[who], env, "verify", "rmsnorm_baseline.py", "rmsnorm_triton_candidate.py")
        ratio = speed_ratio(out)
        rows.append((who, label, out.get("verdict"), "-" if ratio is None else "%.3fx" % ratio, "%.1f s" % wall,
                     (out.get("reason") or "").replace("\n", " ")[:240]))
        print("[%4.0f s] session %s, %s: %s %s %.1f s" % (time.monotonic() - t0, who, label, out.get("verdict"),
                                                         rows[-1][3], wall), file=sys.stderr, flush=True)
        for w in out.get("warnings") or []:
            if "hotkernel session" in w or "spare" in w:
                session_warnings.append("%s, %s: %s" % (who, label, w))
        if log:
            log.write(json.dumps({"session": who, "round": label, "wall_s": wall, "result": out}) + "\n")
            log.flush()

    try:
        for who, d in dirs.items():
            prepare(hotkernel, d, dict(env, HOTKERNEL_NO_SESSION="1"))
            servers[who] = subprocess.Popen([hotkernel, "serve"], cwd=d, env=env, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(args.open_wait)
        apps_before = compute_apps()
        print("on the card before the verifies:\n" + apps_before, file=sys.stderr, flush=True)
        verify("A", "1: one after the other")
        verify("B", "1: one after the other")
        both = [threading.Thread(target=verify, args=(who, "2: both at once")) for who in dirs]
        for t in both:
            t.start()
        for t in both:
            t.join()
        verify("A", "3: one after the other")
        verify("B", "3: one after the other")
        apps_after = compute_apps()
    finally:
        for s in servers.values():
            s.terminate()
        for s in servers.values():
            try:
                s.wait(30)
            except subprocess.TimeoutExpired:
                s.kill()
        for d in dirs.values():
            shutil.rmtree(d, ignore_errors=True)
    print("two sessions on one card (%s, %s, %.0f s)" % (hotkernel, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                                        time.monotonic() - t0))
    print("| session | round | verdict | speedup | wall | reason |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    print("warnings about the other session (issue 42: its spares released, its workers named):")
    for w in session_warnings or ["(none)"]:
        print("- " + w)
    print("compute apps before the verifies (pid, name, memory):\n" + apps_before)
    print("and after:\n" + apps_after)
    return 0 if all(r[2] == "faster" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
