# SPDX-License-Identifier: Apache-2.0
"""Hostile input to the real binary (issue 18): JSON nested far deeper than anything hotkernel
reads, at every entry point (MCP messages, the file given to `record`, a results log the
leaderboard reads), and an MCP client that never reads its output.

Run from CTest (label mcp) with HOTKERNEL_BINARY set; exits non-zero when any case fails.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caserunner import run_cases  # noqa: E402
from test_mcp_client import BINARY, RawServer, server_env  # noqa: E402

# 200 KB of "[" overflowed the stack before the limit; 100,000 levels is well past it.
DEPTH = 100_000


def nested(depth=DEPTH):
    return "[" * depth + "]" * depth


def headless(workdir, extra_env=None):
    env = server_env()
    env.update(extra_env or {})
    return RawServer(workdir, args=["mcp", "--headless"], env=env)


def error_for(server, id_, code):
    reply = server.reply(id_, timeout=60)
    assert "error" in reply, reply
    assert reply["error"]["code"] == code, reply
    return reply["error"]["message"]


def assert_alive(server, ping_id):
    assert server.proc.poll() is None, f"the server died: exit status {server.proc.returncode}"
    server.request(ping_id, "ping")
    assert server.reply(ping_id, timeout=60)["result"] == {}


def case_nested_messages(workdir):
    server = headless(workdir)
    try:
        server.initialize()
        # Deep params: refused under the request's own id.
        server.send_line(('{"jsonrpc":"2.0","id":41,"method":"ping","params":' + nested() + '}').encode())
        message = error_for(server, 41, -32600)
        assert "256 levels" in message, message
        assert_alive(server, 1)
        # Deep tool arguments, with the id after them: the id is still found.
        server.send_line(('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"bench","arguments":{"script":'
                          + nested() + '}},"id":"late"}').encode())
        error_for(server, "late", -32600)
        assert_alive(server, 2)
        # A deep id cannot be answered under itself: null.
        server.send_line(('{"jsonrpc":"2.0","id":' + nested() + ',"method":"ping"}').encode())
        server.wait_for(lambda m: m.get("id", 0) is None and m.get("error", {}).get("code") == -32600, timeout=60)
        assert_alive(server, 3)
        # Unbalanced: not JSON at all.
        before = len(server.messages)
        server.send_line(("[" * (5 * DEPTH)).encode())
        server.wait_for(lambda m: server.messages.index(m) >= before and m.get("error", {}).get("code") == -32700,
                        timeout=60)
        assert_alive(server, 4)
        # A deep notification, a deep batch, deep objects rather than arrays.
        server.send_line(('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":'
                          + nested() + '}}').encode())
        server.send_line(nested().encode())
        server.send_line(('{"jsonrpc":"2.0","id":42,"method":"ping","params":' + '{"a":' * DEPTH + "1"
                          + "}" * DEPTH + '}').encode())
        error_for(server, 42, -32600)
        assert_alive(server, 5)
        # Just inside the limit is an ordinary request (a bad tool argument, not a protocol fault).
        server.request(43, "tools/call", {"name": "bench", "arguments": {"script": json.loads("[" * 250 + "]" * 250)}})
        reply = server.reply(43, timeout=60)
        assert reply["result"]["isError"] is True, reply
        rc, _ = server.close_and_wait(timeout=30)
        assert rc == 0, f"exit status {rc}"
    finally:
        server.kill()


def run_cli(workdir, *args):
    return subprocess.run([BINARY, *args], cwd=workdir, env=server_env(), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=120)


def case_record_nested_file(workdir):
    with open(os.path.join(workdir, "deep.json"), "w") as f:
        f.write('{"tool": "hotkernel verify", "v": ' + nested() + "}")
    done = run_cli(workdir, "record", "scale", "deep.json", "--note", "n", "--who", "w")
    assert done.returncode > 0, f"exit status {done.returncode} (negative: killed by a signal)"
    stderr = done.stderr.decode(errors="replace")
    assert "deep.json" in stderr and "256 levels" in stderr, stderr
    assert not os.path.exists(os.path.join(workdir, "results")), "nothing may be recorded"


def case_leaderboard_nested_log(workdir):
    os.makedirs(os.path.join(workdir, "results", "t"))
    with open(os.path.join(workdir, "results", "t", "deep.json"), "w") as f:
        f.write('{"kind": "hotkernel-result-log", "v": ' + nested() + "}")
    done = run_cli(workdir, "leaderboard")
    assert done.returncode >= 0, f"killed by signal {-done.returncode}"
    stderr = done.stderr.decode(errors="replace")
    assert "deep.json" in stderr and "256 levels" in stderr, stderr


def case_unread_output(workdir):
    limit = 300_000
    server = headless(workdir, {"HOTKERNEL_MCP_OUTPUT_LIMIT": str(limit)})
    try:
        server.initialize()
        # From now on nobody reads stdout: tools/list answers pile up behind the full pipe.
        sent = 0
        try:
            for i in range(5000):
                server.request(100 + i, "tools/list")
                sent += 1
                if server.proc.poll() is not None:
                    break
        except BrokenPipeError:
            pass  # it exited while we were still writing
        try:
            rc = server.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running after {sent} unread tools/list answers")
        stderr = server.proc.stderr.read().decode(errors="replace")
        assert rc == 3, f"exit status {rc}; stderr: {stderr[-500:]}"
        assert "unread" in stderr and "HOTKERNEL_MCP_OUTPUT_LIMIT" in stderr, stderr[-500:]
    finally:
        server.kill()


CASES = [
    ("nested JSON in MCP messages: refused, process alive", case_nested_messages),
    ("record given a deeply nested file: a clear error", case_record_nested_file),
    ("leaderboard reading a deeply nested log: skipped, no crash", case_leaderboard_nested_log),
    ("a client that never reads: exit status 3", case_unread_output),
]


def main():
    run_cases(CASES, "hk-limits-")


if __name__ == "__main__":
    main()
