#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 23 on the GPU machine: edit to verdict inside one session. Prints one table.

The clock runs from the request leaving this script to the verdict arriving. rmsnorm 4096x8192
bf16, the eager baseline against a Triton candidate (bench/verify_speed.py's kernels), n=7:
  agent (a headless `hotkernel mcp`, opened 15 s before the first request, spares on):
    the first verify; after an edit of the candidate (num_warps 16 -> 8); after editing it back;
    two targets alternating (the second with half the rows); the A/A and ~3% slower rows (adaptive n, as verify_speed.py);
  CLI joined to a `hotkernel serve` session opened 15 s earlier: the same three verifies;
  cold: three `hotkernel verify --no-session` runs (a process of their own, no spares), whose
    speedup spread the warm verdicts are compared with;
  the spares' GPU memory (nvidia-smi, the processes that run spare_worker.py).

Between a verdict and the next verify of the table's rows the script waits --edit-wait seconds (10):
the agent's turn, in which the session refills its spares. The A/A and slower rows follow each other
without a wait.

usage: bench/session_speed.py [--hotkernel PATH] [--aa 20] [--slow 10] [--open-wait 15] [--edit-wait 10]
Needs HOTKERNEL_PYTHON (or python3 on PATH) with CUDA torch and Triton.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_bench import Server, initialize  # noqa: E402
from verify_speed import KERNELS, find_hotkernel  # noqa: E402

# The candidate keeps its kernel's launch width in its own file, so an edit is an edit of it.
CANDIDATE_FN = '''
import torch  # noqa: E402
import triton  # noqa: E402
from kernels_speed import _rmsnorm_rows  # noqa: E402

NUM_WARPS = {warps}


def fn(x, w, eps=1e-6):
    x = x.contiguous()
    y = torch.empty_like(x)
    rows, cols = x.shape
    _rmsnorm_rows[(rows,)](x, w, y, rows, cols, eps, BLOCK=triton.next_power_of_2(cols), num_warps=NUM_WARPS)
    return y
'''


def write_candidate(template, path, warps):
    marker = 'if __name__ == "__main__":'
    with open(path, "w") as f:
        f.write(template.replace(marker, CANDIDATE_FN.format(warps=warps) + "\n\n" + marker, 1))


def with_fn(source, path, line):
    marker = 'if __name__ == "__main__":'
    with open(source) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace(marker, line + "\n\n\n" + marker, 1))


def cli(hotkernel, workdir, env, *args):
    started = time.monotonic()
    p = subprocess.run([hotkernel, "--json", "--quiet", *args], cwd=workdir, env=env, capture_output=True,
                       text=True)
    wall = time.monotonic() - started
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else {}
    except ValueError:
        out = {}
    if p.returncode != 0:
        out.setdefault("verdict", "error %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    return out, wall


def mcp_verify(server, baseline, candidate, n=7):
    arguments = {"baseline": baseline, "candidate": candidate}
    if n:
        arguments["n"] = n
    started = time.monotonic()
    reply = server.wait(server.send("tools/call", {"name": "verify", "arguments": arguments}), timeout=600)
    wall = time.monotonic() - started
    result = reply.get("result") or {}
    out = result.get("structuredContent") or {}
    if result.get("isError") or "error" in reply:
        text = (result.get("content") or [{}])[0].get("text") or json.dumps(reply.get("error"))
        out = dict(out, verdict="error: " + text[:300])
    return out, wall


def spare_gpu_memory():
    """MiB of GPU memory each process running spare_worker.py holds, from nvidia-smi."""
    try:
        p = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "nvidia-smi failed: %s" % e
    spares = []
    for line in p.stdout.splitlines():
        pid, _, mib = line.partition(",")
        try:
            with open("/proc/%s/cmdline" % pid.strip(), "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        # A worker that came from a spare keeps the spare's command line; an idle spare still
        # runs in its own directory, a worker in its target's.
        try:
            here = os.readlink("/proc/%s/cwd" % pid.strip())
        except OSError:
            continue
        if b"spare_worker" in cmdline and os.path.isfile(os.path.join(here, "spare_worker.py")):
            spares.append(int(mib))
    return spares


def row(rows, section, label, out, wall):
    rows.append((section, label, wall, out.get("n"), out.get("verdict"), out.get("speedup"),
                 out.get("workers_from_spare"), out.get("workers_reused")))
    print("| %s | %s | %.2f s | %s | %s | spares %s | reused %s |" % (section, label, wall, out.get("verdict"),
                                                                 out.get("speedup"), out.get("workers_from_spare"),
                                                                 out.get("workers_reused")), file=sys.stderr, flush=True)
    # Where the time went, to read while it runs (the table keeps only the totals).
    print("    phases_s %s steps_s %s" % (json.dumps(out.get("phases_s")), json.dumps(out.get("steps_s"))),
          file=sys.stderr, flush=True)
    if out.get("verdict") not in ("faster", "slower", "inconclusive"):
        print("%s, %s: %s: %s" % (section, label, out.get("verdict"), str(out.get("reason"))[:400]), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hotkernel")
    ap.add_argument("--aa", type=int, default=20)
    ap.add_argument("--slow", type=int, default=10)
    ap.add_argument("--slow-fraction", type=float, default=0.03)
    ap.add_argument("--open-wait", type=float, default=15.0, help="seconds between opening a session and its "
                                                                   "first verify")
    ap.add_argument("--edit-wait", type=float, default=10.0,
                    help="seconds between a verdict and the next verify of the same session: the agent reading the "
                         "verdict and editing (the spares refill meanwhile)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--dump", help="copy every verify's full result (profiles/results/verify-*.json: per-run steps, "
                    "warnings, isolation) into this folder, to see where a verify's time goes")
    ap.add_argument("--agent-only", action="store_true",
                    help="only the agent's rows (no CLI-in-a-session or cold rows): a before/after cost probe")
    ap.add_argument("--device", help="the targets' device (default: new's); cpu to try the script without a GPU")
    ap.add_argument("--rows", type=int, default=4096, help="rows of the rmsnorm input (8192 columns)")
    args = ap.parse_args()
    hotkernel = find_hotkernel(args.hotkernel)
    workdir = tempfile.mkdtemp(prefix="session_speed_")
    env = dict(os.environ, VERIFY_SPEED_SLOW_FRACTION=str(args.slow_fraction))
    alone = dict(env, HOTKERNEL_NO_SESSION="1")
    rows = []
    notes = []
    t0 = time.monotonic()
    try:
        with open(os.path.join(workdir, "kernels_speed.py"), "w") as f:
            f.write(KERNELS)
        common = ["--extra", "w:8192", "--rotate", "x", "--dtype", "bf16", "--out-dir", "."]
        if args.device:
            common += ["--device", args.device]
        rows_ = "%dx8192" % args.rows
        for name, fn, shape in [("rmsnorm", "rmsnorm_eager", rows_), ("half", "rmsnorm_eager", "%dx8192" % (args.rows // 2)),
                                ("rmsnormt", "rmsnorm_triton", rows_)]:
            out, _ = cli(hotkernel, workdir, alone, "new", name, "--from", "./kernels_speed.py:" + fn, "--shape",
                         shape, *common)
            if str(out.get("verdict", "")).startswith("error"):
                sys.exit("session_speed: hotkernel new %s failed: %s" % (name, out["verdict"]))
        with open(os.path.join(workdir, "rmsnorm_candidate.py")) as f:
            template = f.read()
        candidate = os.path.join(workdir, "rmsnorm_candidate.py")
        write_candidate(template, candidate, 16)
        with open(os.path.join(workdir, "half_candidate.py")) as f:
            half_template = f.read()
        write_candidate(half_template, os.path.join(workdir, "half_candidate.py"), 16)
        with_fn(os.path.join(workdir, "rmsnormt_candidate.py"), os.path.join(workdir, "rmsnormt_slow_candidate.py"),
                "from kernels_speed import rmsnorm_triton_slow as fn  # noqa: E402")

        # The agent's session.
        server = Server(hotkernel, workdir)
        initialize(server)
        time.sleep(max(0.0, args.open_wait - (time.perf_counter() - server.started)))
        notes.append("spares' GPU memory, session open and idle (MiB each): %s" % spare_gpu_memory())
        for label, warps in [("first verify", 16), ("after an edit (num_warps 8)", 8), ("after editing it back", 16)]:
            if label != "first verify":
                time.sleep(args.edit_wait)
            write_candidate(template, candidate, warps)
            out, wall = mcp_verify(server, "rmsnorm_baseline.py", "rmsnorm_candidate.py")
            row(rows, "agent (mcp)", label, out, wall)
        notes.append("spares' GPU memory after three verifies (MiB each): %s" % spare_gpu_memory())
        for i, name in enumerate(["half", "rmsnorm", "half", "rmsnorm"]):
            time.sleep(args.edit_wait)
            out, wall = mcp_verify(server, name + "_baseline.py", name + "_candidate.py")
            row(rows, "agent (mcp)", "two targets alternating %d: %s" % (i + 1, name), out, wall)
        aa = {}
        for _ in range(args.aa):
            out, wall = mcp_verify(server, "rmsnorm_baseline.py", "rmsnorm_baseline.py", n=None)
            aa[out.get("verdict")] = aa.get(out.get("verdict"), 0) + 1
        slow = {}
        for _ in range(args.slow):
            out, wall = mcp_verify(server, "rmsnormt_baseline.py", "rmsnormt_slow_candidate.py", n=None)
            slow[out.get("verdict")] = slow.get(out.get("verdict"), 0) + 1
        server.close()

        # The CLI joined to a session server (not with --agent-only).
        if not args.agent_only:
            serve = subprocess.Popen([hotkernel, "serve"], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(args.open_wait)
            if serve.poll() is not None:
                notes.append("hotkernel serve exited %s: %s" % (serve.returncode, serve.stderr.read().decode()[-300:]))
            else:
                for label, warps in [("first verify", 16), ("after an edit (num_warps 8)", 8),
                                     ("after editing it back", 16)]:
                    if label != "first verify":
                        time.sleep(args.edit_wait)
                    write_candidate(template, candidate, warps)
                    out, wall = cli(hotkernel, workdir, env, "verify", "rmsnorm_baseline.py", "rmsnorm_candidate.py",
                                    "-n", "7")
                    row(rows, "CLI in a session", label, out, wall)
                serve.terminate()
                serve.wait(30)

        cold = []
        write_candidate(template, candidate, 16)
        for i in range(0 if args.agent_only else 3):
            out, wall = cli(hotkernel, workdir, alone, "verify", "rmsnorm_baseline.py", "rmsnorm_candidate.py",
                            "-n", "7")
            row(rows, "cold (--no-session)", "verify %d" % (i + 1), out, wall)
            if isinstance(out.get("speedup"), (int, float)):
                cold.append(out["speedup"])
    finally:
        if args.dump:
            dump_results(workdir, args.dump)
        if args.keep:
            print("scratch folder kept: %s" % workdir, file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    report(hotkernel, args, rows, cold, aa, slow, notes, t0)


def dump_results(workdir, into):
    os.makedirs(into, exist_ok=True)
    for root, _, files in os.walk(os.path.join(workdir, "profiles", "results")):
        for name in files:
            if name.startswith("verify-") and name.endswith(".json"):
                shutil.copy(os.path.join(root, name), os.path.join(into, name))


def report(hotkernel, args, rows, cold, aa, slow, notes, t0):
    print("hotkernel edit-to-verdict (%s, %s)" % (hotkernel, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    print()
    print("| where | verify | wall s | n | verdict | speedup | workers from spares | workers reused |")
    print("|---|---|---|---|---|---|---|---|")
    for section, label, wall, n, verdict, speedup, spare, reused in rows:
        print("| %s | %s | %.2f | %s | %s | %s | %s | %s |" % (
            section, label, wall, n, verdict, "%.3f" % speedup if isinstance(speedup, (int, float)) else "-",
            spare, reused))
    print()
    if cold:
        print("cold speedups: %s (median %.3f, spread %.3f..%.3f)" % (
            ", ".join("%.3f" % s for s in cold), statistics.median(cold), min(cold), max(cold)))
    print("A/A (baseline vs itself, adaptive, in the session): %s of %d said faster or slower: %s" % (
        aa.get("faster", 0) + aa.get("slower", 0), args.aa, aa))
    print("~%.0f%% slower candidate (adaptive, in the session): %s of %d said slower: %s" % (
        args.slow_fraction * 100, slow.get("slower", 0), args.slow, slow))
    for note in notes:
        print(note)
    print("%.0f s between a verdict and the next edit's verify (the agent's turn; --edit-wait)" % args.edit_wait)
    print("goals: <= 3 s after an edit and for the first verify of a warmed session; A/A <= 1 of 20; slower >= 9 "
          "of 10. total %.0f s" % (time.monotonic() - t0))


if __name__ == "__main__":
    main()
