# SPDX-License-Identifier: Apache-2.0
"""End to end, for agents (issue 20): the skill comes with the server (instructions, the
kernel-speedrun prompt, the SKILL.md resource, list_changed), tools/list stays under 15 KB, and
the original Python hotkernel's documented calls (the tool tables in its docs) work against ours,
uncontracted scripts labelled and refused by record.

Run from CTest (label mcp) with HOTKERNEL_BINARY and HOTKERNEL_SOURCE_DIR set; the replay needs
CPU torch: HOTKERNEL_PYTHON=/usr/bin/python3. Exits non-zero when any case fails.
"""
import json
import os
import shutil
import subprocess
import sys
import time

from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caserunner import run_cases  # noqa: E402
from test_mcp_client import BINARY, RawServer, sdk_params  # noqa: E402

SOURCE_DIR = os.environ.get("HOTKERNEL_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SKILL_PATH = os.path.join(SOURCE_DIR, "skills", "kernel-speedrun", "SKILL.md")
SKILL_URI = "hotkernel://skills/kernel-speedrun/SKILL.md"
TOOLS_LIST_LIMIT = 15000  # 15 kB read strictly (decimal), below 15 KiB


def skill_text():
    with open(SKILL_PATH, encoding="utf-8") as f:
        return f.read()


# ---------------------------------------------------------------- the skill and the resources

async def case_skill_served(workdir):
    async with stdio_client(sdk_params(workdir)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            caps = init.capabilities
            assert caps.prompts is not None, "no prompts capability"
            assert caps.resources is not None and caps.resources.list_changed, caps.resources
            instructions = init.instructions or ""
            # The loop itself, not only a pointer to a file the user may not have.
            for word in ("new_target", "bench", "torch_trace", "roofline", "disasm", "verify", "record",
                         "three changes", "kernel-speedrun", SKILL_URI):
                assert word in instructions, f"instructions lack {word!r}: {instructions}"
            assert len(instructions) < 2000, len(instructions)

            prompts = await session.list_prompts()
            assert [p.name for p in prompts.prompts] == ["kernel-speedrun"], prompts
            got = await session.get_prompt("kernel-speedrun")
            assert got.messages[0].role == "user"
            assert got.messages[0].content.text == skill_text(), "prompt differs from skills/kernel-speedrun/SKILL.md"
            with_goal = await session.get_prompt("kernel-speedrun", {"goal": "make rmsnorm faster"})
            assert with_goal.messages[0].content.text.startswith(skill_text())
            assert "make rmsnorm faster" in with_goal.messages[0].content.text
            try:
                await session.get_prompt("no-such-prompt")
                raise AssertionError("an unknown prompt was answered")
            except MCPError as e:
                assert e.error.code == -32602, e.error
                assert "kernel-speedrun" in e.error.message, e.error.message

            resources = await session.list_resources()
            uris = [str(r.uri) for r in resources.resources]
            assert SKILL_URI in uris, uris
            read_back = await session.read_resource(SKILL_URI)
            assert read_back.contents[0].text == skill_text()


def case_resources_list_changed(workdir):
    server = RawServer(workdir)
    try:
        server.initialize()
        server.request(1, "resources/list")
        before = [r["uri"] for r in server.reply(1)["result"]["resources"]]
        assert "hotkernel://results/demo/r.json" not in before
        os.makedirs(os.path.join(workdir, "results", "demo"))
        with open(os.path.join(workdir, "results", "demo", "r.json"), "w") as f:
            f.write("{}\n")
        # The folder watch sees it; a finished job looks again too (where inotify is missing).
        server.request(2, "tools/call", {"name": "roofline", "arguments": {"card": "h200-sxm"}})
        server.reply(2)
        server.wait_for(lambda m: m.get("method") == "notifications/resources/list_changed", timeout=60)
        server.request(3, "resources/list")
        after = [r["uri"] for r in server.reply(3)["result"]["resources"]]
        assert "hotkernel://results/demo/r.json" in after, after
        # Nothing new: no second notification.
        count = len([m for m in server.messages if m.get("method") == "notifications/resources/list_changed"])
        server.request(4, "tools/call", {"name": "roofline", "arguments": {"card": "h200-sxm"}})
        server.reply(4)
        time.sleep(1.0)
        server._read_some(0.2)
        again = len([m for m in server.messages if m.get("method") == "notifications/resources/list_changed"])
        assert again == count, f"list_changed without a change ({count} -> {again})"
        rc, _ = server.close_and_wait()
        assert rc == 0
    finally:
        server.kill()


def case_tools_list_small(workdir):
    server = RawServer(workdir)
    try:
        server.initialize()
        server.request(1, "tools/list")
        result = server.reply(1)["result"]
        size = len(json.dumps(result, separators=(",", ":")).encode())
        assert size < TOOLS_LIST_LIMIT, f"tools/list is {size} bytes, over {TOOLS_LIST_LIMIT}"
        for tool in result["tools"]:
            # Self-explanatory: a description that says what it does, and every argument described.
            assert 100 <= len(tool["description"]) <= 600, (tool["name"], len(tool["description"]))
            for name, prop in tool["inputSchema"].get("properties", {}).items():
                assert prop.get("description"), f"{tool['name']}.{name} has no description"
        print(f"        tools/list: {size} bytes")
        server.close_and_wait()
    finally:
        server.kill()


# ---------------------------------------------------------------- the original's calls

GENERIC_SCRIPT = """import json, sys, time
# A script in the original's generic form: prints one JSON line with ms and ok.
size = int(sys.argv[sys.argv.index("--size") + 1]) if "--size" in sys.argv else 1
start = time.perf_counter()
total = sum(i * i for i in range(size * 1000))
print("log line on stdout before the result")
print(json.dumps({"ms": (time.perf_counter() - start) * 1e3 + 0.001, "ok": total >= 0}))
"""

TRACE_SCRIPT = """import torch
x = torch.randn(256, 256)
for _ in range(3):
    y = torch.nn.functional.gelu(x @ x)
print(float(y.sum()))
"""


def call(server, id_, name, arguments, timeout=300):
    server.request(id_, "tools/call", {"name": name, "arguments": arguments})
    return server.reply(id_, timeout=timeout)["result"]


def text(result):
    return result["content"][0]["text"]


def assert_arguments_accepted(name, result):
    """A tool error is fine where this machine lacks the tool (no GPU, no Nsight), but never one
    about the arguments: the call as the original documented it must be understood."""
    if result["isError"]:
        assert "invalid arguments" not in text(result), f"{name}: {text(result)}"


def case_original_calls(workdir):
    os.makedirs(os.path.join(workdir, "sub"))
    with open(os.path.join(workdir, "sub", "generic.py"), "w") as f:
        f.write(GENERIC_SCRIPT)
    shutil.copy(os.path.join(workdir, "sub", "generic.py"), os.path.join(workdir, "sub", "generic2.py"))
    with open(os.path.join(workdir, "trace_me.py"), "w") as f:
        f.write(TRACE_SCRIPT)
    shutil.copy(os.path.join(SOURCE_DIR, "tests", "data", "inspect", "eager.ncu-details.csv"),
                os.path.join(workdir, "details.csv"))
    server = RawServer(workdir)
    try:
        server.initialize()
        i = iter(range(100, 1000))

        r = call(server, next(i), "gpu_info", {})
        assert text(r).strip()

        # roofline(gpu=...): the ridge point alone; with flops, bytes and measured_mem_gbs, the floor.
        r = call(server, next(i), "roofline", {"gpu": "H200"})
        assert not r["isError"], text(r)
        assert r["structuredContent"]["spec"]["ridge_flops_per_byte"] > 0
        assert r["structuredContent"]["spec"]["bound"] is None
        r = call(server, next(i), "roofline", {"gpu": "H200", "dtype": "bf16", "flops": 4096 * 8192 * 4,
                                              "bytes": 4096 * 8192 * 4, "measured_mem_gbs": 4140})
        assert not r["isError"], text(r)
        measured = r["structuredContent"]["measured"]
        assert measured["bound"] == "memory" and abs(measured["bandwidth_gbs"] - 4140) < 1e-6, measured
        assert "calibration arguments (measured_mem_gbs)\n" in text(r) and "()" not in text(r), text(r)

        # new_target(from_=..., shape 'A,B' / 'A*B', fp64, out_dir).
        r = call(server, next(i), "new_target", {"target": "gelu", "from_": "torch.nn.functional:gelu",
                                                 "shape": "64,32", "dtype": "fp32", "iters": 2, "out_dir": "."},
                 timeout=180)
        assert not r["isError"], text(r)
        r = call(server, next(i), "new_target", {"target": "relu64", "from_": "torch.nn.functional:relu",
                                                 "shape": "16*8", "dtype": "fp64", "iters": 2, "out_dir": "."},
                 timeout=180)
        assert not r["isError"], text(r)
        baseline64 = open(os.path.join(workdir, "relu64_baseline.py")).read()
        assert '"fp64"' in baseline64 and "[16, 8]" in baseline64, baseline64[:800]

        # bench / verify of the contracted pair, with the original's argument set (cwd the working dir).
        r = call(server, next(i), "bench", {"script": "gelu_baseline.py", "n": 3, "warmup": 1, "timeout": 300,
                                            "cwd": "."})
        assert not r["isError"], text(r)
        assert r["structuredContent"].get("label") != "uncontracted"
        r = call(server, next(i), "bench", {"script": "relu64_baseline.py", "n": 2, "warmup": 1})
        assert not r["isError"], text(r)
        verify = call(server, next(i), "verify", {"baseline": "gelu_baseline.py", "candidate": "gelu_candidate.py",
                                                  "n": 3, "warmup": 1, "timeout": 300, "cwd": "."})
        assert not verify["isError"], text(verify)
        recorded = call(server, next(i), "record", {"target": "gelu", "verify_result": verify["structuredContent"],
                                                    "note": "untouched candidate (replay test)",
                                                    "who": "hand-written by the test", "cwd": workdir})
        assert not recorded["isError"], text(recorded)
        elsewhere = call(server, next(i), "record", {"target": "gelu", "verify_result": verify["structuredContent"],
                                                     "note": "x", "who": "y", "cwd": "/"})
        assert elsewhere["isError"] and "working directory" in text(elsewhere), text(elsewhere)

        # Generic scripts: any JSON line with ms and ok, args, cwd; labelled uncontracted.
        r = call(server, next(i), "bench", {"script": "generic.py", "n": 3, "warmup": 1, "args": ["--size", "5"],
                                            "cwd": "sub", "timeout": 120})
        assert not r["isError"], text(r)
        assert r["structuredContent"]["label"] == "uncontracted", r["structuredContent"]
        assert r["structuredContent"]["stats"]["n"] == 3
        assert "UNCONTRACTED" in text(r)
        generic = call(server, next(i), "verify", {"baseline": "generic.py", "candidate": "generic2.py", "n": 3,
                                                   "warmup": 1, "cwd": "sub", "args": ["--size", "5"]})
        assert not generic["isError"], text(generic)
        g = generic["structuredContent"]
        assert g["label"] == "uncontracted" and g["contracted"] is False, g
        # Issue 41: an uncontracted verdict says the times are the scripts' own claims.
        assert g["verdict"] in ("claimed_faster", "claimed_slower", "inconclusive"), g["verdict"]
        assert g["speedup"] is None and g["claimed_speedup"] > 0, g
        assert len(g["baseline_sha256"]) == 64 and len(g["candidate_sha256"]) == 64, g
        # A contracted baseline against an uncontracted candidate is refused, saying why.
        mixed = call(server, next(i), "verify", {"baseline": "gelu_baseline.py", "candidate": "sub/generic.py",
                                                 "n": 3, "warmup": 1})
        assert mixed["isError"] and "imports the measurement contract" in text(mixed), text(mixed)
        refused = call(server, next(i), "record", {"target": "generic", "verify_result": g, "note": "n", "who": "w"})
        assert refused["isError"] and "uncontracted" in text(refused), text(refused)
        # Stripping the label does not help: an edited result is not one this server produced.
        stripped = {k: v for k, v in g.items() if k not in ("label", "contracted")}
        refused = call(server, next(i), "record", {"target": "generic", "verify_result": stripped, "note": "n",
                                                   "who": "w"})
        assert refused["isError"] and "not produced by a verify in this" in text(refused), text(refused)
        escape = call(server, next(i), "bench", {"script": "generic.py", "cwd": "/tmp"})
        assert escape["isError"], text(escape)

        # torch_trace(script, top, args, timeout, cwd).
        r = call(server, next(i), "torch_trace", {"script": "trace_me.py", "top": 5, "args": [], "timeout": 120,
                                                  "cwd": "."}, timeout=200)
        assert not r["isError"], text(r)
        assert r["structuredContent"]["ops"], r["structuredContent"]

        # top_kernels(summary_csv, n, tool).
        r = call(server, next(i), "top_kernels", {"summary_csv": "details.csv", "n": 3, "tool": "ncu"})
        assert not r["isError"], text(r)

        # profile(cmd as one string, tool, ncu_*, out_dir, timeout) and disasm(kernel, max_lines <= 0):
        # this machine may have neither Nsight nor cuobjdump, but the arguments must be understood.
        r = call(server, next(i), "profile", {"cmd": "python3 trace_me.py", "tool": "ncu", "ncu_kernel_regex": "gemm",
                                              "ncu_launch_count": 1, "out_dir": "results/profiles", "timeout": 120},
                 timeout=200)
        assert_arguments_accepted("profile", r)
        r = call(server, next(i), "disasm", {"target": "triton-cache", "kernel": "rmsnorm", "level": "sass",
                                             "max_lines": -1})
        assert_arguments_accepted("disasm", r)

        # An alias and our own name together are a clear error.
        r = call(server, next(i), "roofline", {"gpu": "H200", "card": "H200"})
        assert r["isError"] and "same argument" in text(r), text(r)
        server.close_and_wait()
    finally:
        server.kill()


def case_plugin_and_client_configs(workdir):
    plugin = os.path.join(SOURCE_DIR, "packaging", "claude-plugin")
    with open(os.path.join(plugin, ".claude-plugin", "marketplace.json")) as f:
        marketplace = json.load(f)
    entry = marketplace["plugins"][0]
    assert entry["name"] == "hotkernel", entry
    root = os.path.normpath(os.path.join(plugin, entry["source"]))
    with open(os.path.join(root, ".claude-plugin", "plugin.json")) as f:
        assert json.load(f)["name"] == "hotkernel"
    with open(os.path.join(root, ".mcp.json")) as f:
        server = json.load(f)["mcpServers"]["hotkernel"]
    assert server["command"] == "hotkernel" and server["args"] == ["mcp"], server
    # Issue 44: the interpreter (and where workers run, and a window) from the user's environment.
    assert server["env"]["HOTKERNEL_PYTHON"] == "${HOTKERNEL_PYTHON:-}", server
    copy = os.path.join(root, "skills", "kernel-speedrun", "SKILL.md")
    assert not os.path.islink(copy), "the plugin's SKILL.md must be a copy, not a symlink"
    with open(copy, encoding="utf-8") as f:
        assert f.read() == skill_text(), "packaging/claude-plugin's SKILL.md differs from skills/: copy it again"

    env = dict(os.environ, HOTKERNEL_PYTHON="/opt/venv/bin/python")
    binary = os.path.realpath(BINARY)
    for client in ("claude", "codex", "cursor"):
        out = subprocess.run([BINARY, "mcp", "--print-config", client], env=env, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, (client, out.stderr)
        body = out.stdout
        if client == "codex":
            import tomllib
            table = tomllib.loads(body)["mcp_servers"]["hotkernel"]
            assert table["command"] == binary and table["args"] == ["mcp"], table
            assert table["tool_timeout_sec"] >= 600 and table["env"]["HOTKERNEL_PYTHON"] == "/opt/venv/bin/python"
        else:
            block = json.loads("\n".join(line for line in body.splitlines() if not line.startswith(("#", "//"))))
            entry = block["mcpServers"]["hotkernel"]
            assert entry["command"] == binary and entry["args"] == ["mcp"], entry
            assert entry["env"]["HOTKERNEL_PYTHON"] == "/opt/venv/bin/python"
    bad = subprocess.run([BINARY, "mcp", "--print-config", "emacs"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "claude" in bad.stderr, bad


CASES = [
    ("skill: instructions, prompt, resource", case_skill_served),
    ("resources list_changed", case_resources_list_changed),
    ("tools/list under 15 KB, every tool described", case_tools_list_small),
    ("the original's documented calls", case_original_calls),
    ("Claude Code plugin and --print-config", case_plugin_and_client_configs),
]


def main():
    run_cases(CASES, "hk-agents-", realpath=True)


if __name__ == "__main__":
    main()
