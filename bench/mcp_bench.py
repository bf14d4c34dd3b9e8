#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Speed of `hotkernel mcp` as an agent feels it (a benchmark, not a timed test).

Prints: process start to initialize reply (goal < 150 ms), the size of tools/list and of the
initialize reply (what every agent session pays in context; goal < 15 KB), tools/list latency
p50/p95 over 1,000 requests (goal p95 < 5 ms), and roofline call latency idle vs while a verify runs in
the background (goal: unaffected).

usage: bench/mcp_bench.py [path/to/hotkernel]   (default: $HOTKERNEL_BINARY, then build/dev/app/hotkernel)
Needs CPU torch for the background verify: HOTKERNEL_PYTHON=/usr/bin/python3 (the default here).
"""
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time


class Server:
    def __init__(self, binary, workdir):
        env = dict(os.environ)
        env.setdefault("HOTKERNEL_PYTHON", "/usr/bin/python3")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([binary, "mcp"], cwd=workdir, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.buffer = b""
        self.next_id = 1
        self.pending = {}

    def send(self, method, params=None):
        id_ = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            message["params"] = params
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        return id_

    def _pump(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return
        chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
        if not chunk:
            raise RuntimeError("server closed stdout")
        self.buffer += chunk
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            message = json.loads(line)
            if "id" in message and "method" not in message:
                self.pending[message["id"]] = message

    def wait(self, id_, timeout=300):
        deadline = time.perf_counter() + timeout
        while id_ not in self.pending:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"no reply to {id_}")
            self._pump(0.5)
        return self.pending.pop(id_)

    def call(self, method, params=None):
        start = time.perf_counter()
        reply = self.wait(self.send(method, params))
        return reply, (time.perf_counter() - start) * 1000

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(10)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def initialize(server):
    return server.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "mcp_bench", "version": "1"}})


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("HOTKERNEL_BINARY", "build/dev/app/hotkernel")
    binary = os.path.abspath(binary)
    workdir = tempfile.mkdtemp(prefix="hk-mcp-bench-")
    print(f"hotkernel mcp benchmark: {binary}")

    startups = []
    for _ in range(10):
        server = Server(binary, workdir)
        initialize(server)
        startups.append((time.perf_counter() - server.started) * 1000)
        server.close()
    print(f"start -> initialize reply: median {statistics.median(startups):.1f} ms, "
          f"min {min(startups):.1f} ms, max {max(startups):.1f} ms over 10 starts (goal < 150 ms)")

    server = Server(binary, workdir)
    init, _ = initialize(server)
    listed, _ = server.call("tools/list")
    tools_bytes = len(json.dumps(listed["result"], separators=(",", ":")).encode())
    init_bytes = len(json.dumps(init["result"], separators=(",", ":")).encode())
    print(f"tools/list: {tools_bytes} bytes ({tools_bytes / 1024:.1f} KB) for {len(listed['result']['tools'])} tools "
          f"(goal < 15 KB); initialize reply {init_bytes} bytes")
    for tool in sorted(listed["result"]["tools"], key=lambda t: -len(json.dumps(t))):
        print(f"  {tool['name']:12} {len(json.dumps(tool, separators=(',', ':'))):6} bytes")
    latencies = [server.call("tools/list")[1] for _ in range(1000)]
    print(f"tools/list x1000: p50 {percentile(latencies, 50):.3f} ms, p95 {percentile(latencies, 95):.3f} ms, "
          f"max {max(latencies):.3f} ms (goal p95 < 5 ms)")

    idle = [server.call("tools/call", {"name": "roofline", "arguments": {}})[1] for _ in range(50)]

    # A verify that keeps the worker busy: each call sleeps, so it runs for minutes unless cancelled.
    with open(os.path.join(workdir, "slowfn.py"), "w") as f:
        f.write("import time\n\ndef slow(x):\n    time.sleep(0.05)\n    return x * 2\n")
    made, _ = server.call("tools/call", {"name": "new_target", "arguments": {
        "target": "slow", "from": "./slowfn.py:slow", "shape": "64", "dtype": "fp32", "device": "cpu", "iters": 1}})
    verify_id = server.send("tools/call", {"name": "verify", "arguments": {
        "baseline": "slow_baseline.py", "candidate": "slow_candidate.py", "n": 1000, "timeout": 600}})
    time.sleep(2.0)  # let it start its workers
    busy = [server.call("tools/call", {"name": "roofline", "arguments": {}})[1] for _ in range(50)]
    verify_running = verify_id not in server.pending
    if not verify_running:
        text = server.pending[verify_id]["result"]["content"][0]["text"]
        print(f"note: the background verify ended early: {text[:160]}")
    if made.get("result", {}).get("isError"):
        print(f"note: new_target failed: {made['result']['content'][0]['text'][:160]}")
    print(f"roofline idle:            p50 {percentile(idle, 50):.3f} ms, p95 {percentile(idle, 95):.3f} ms")
    print(f"roofline during verify:   p50 {percentile(busy, 50):.3f} ms, p95 {percentile(busy, 95):.3f} ms "
          f"(verify {'running' if verify_running else 'NOT running'} while measured; goal: unaffected)")
    start = time.perf_counter()
    server.close()
    print(f"stdin closed with a verify in flight: exit {server.proc.returncode} after "
          f"{(time.perf_counter() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
