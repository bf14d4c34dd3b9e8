# SPDX-License-Identifier: Apache-2.0
"""Results sized for a model's context (issue 44), through the official MCP Python SDK.

Agent hosts such as Claude Code give the model structuredContent instead of the text, so every
tool's structuredContent must stay within an absolute budget (core/mcp/contextbudget.cpp; the same
numbers are set here, and a result over them fails the test). Results over a budget name the
full result in `full_result`, a file the server serves as a resource. The cases run each tool on
real captured reports (tests/data/inspect) and on a CPU target, and an agent follows the skill
(skills/kernel-speedrun/SKILL.md) reading structuredContent alone, never the text.

`python3 test_context_budget.py --report` prints the bytes per tool (structuredContent and text)
for the binary in HOTKERNEL_BINARY, which is how the sizes before and after were measured.
"""
import json
import os
import shutil
import sys
import tempfile

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from caserunner import run_cases

BINARY = os.path.abspath(os.environ.get("HOTKERNEL_BINARY", "hotkernel"))
SOURCE = os.environ.get("HOTKERNEL_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
INSPECT = os.path.join(SOURCE, "tests", "data", "inspect")

# Bytes of compact JSON per tool's structuredContent; the server's table (contextbudget.cpp).
BUDGET = {"gpu_info": 3000, "roofline": 3000, "torch_trace": 6000, "profile": 6000, "top_kernels": 6000,
          "disasm": 4000, "bench": 3000, "verify": 4000, "record": 2500, "new_target": 2500}


def compact(value):
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def params(workdir):
    env = dict(os.environ)
    env.setdefault("HOTKERNEL_PYTHON", "/usr/bin/python3")
    return StdioServerParameters(command=BINARY, args=["mcp", "--headless"], cwd=workdir, env=env)


def prepare(workdir):
    for name in ("eager.ncu-details.csv", "trace-torch.jsonl", "templated.sm_90.cubin",
                 "triton-rmsnorm.ncu-source-sass.csv"):
        shutil.copy(os.path.join(INSPECT, name), workdir)
    if os.path.exists(os.path.join(INSPECT, MANY)):
        shutil.copy(os.path.join(INSPECT, MANY), workdir)
    with open(os.path.join(workdir, "trace_me.py"), "w") as f:
        f.write("import torch\nx = torch.randn(64, 64)\nfor _ in range(3):\n    (x @ x).relu().sum()\n")


# A profile of 500 distinct kernels (900 launches), captured on an H100 by
# tests/data/capture/capture_many_kernels.sh (tests/data/inspect/many-CAPTURE.log.txt).
MANY = "many.trace.jsonl"


# Each tool once on real input: (tool, arguments, may fail on this machine).
def calls():
    many = [("top_kernels", {"path": MANY, "n": 500}, False),
            ("top_kernels", {"path": MANY}, False)] if os.path.exists(os.path.join(INSPECT, MANY)) else []
    return many + [
        ("new_target", {"target": "scale", "from": "torch.nn.functional:relu", "shape": "256", "dtype": "fp32",
                        "device": "cpu", "iters": 2}, False),
        ("bench", {"script": "scale_baseline.py", "n": 5}, False),
        ("verify", {"baseline": "scale_baseline.py", "candidate": "scale_candidate.py", "n": 5}, False),
        ("roofline", {"card": "H200", "flops": 1e9, "bytes": 1e8, "ms": 0.5}, False),
        ("top_kernels", {"path": "eager.ncu-details.csv"}, False),
        ("top_kernels", {"path": "eager.ncu-details.csv", "per_launch": True, "n": 50}, False),
        ("top_kernels", {"path": "trace-torch.jsonl", "n": 50}, False),
        ("disasm", {"target": "templated.sm_90.cubin"}, True),
        ("disasm", {"target": "triton-rmsnorm.ncu-source-sass.csv"}, True),
        ("torch_trace", {"script": "trace_me.py"}, False),
        ("gpu_info", {}, True),
        ("profile", {"command": ["/usr/bin/python3", "-c", "1"], "tool": "trace"}, True),
    ]


async def measure(workdir):
    """[(tool, arguments, structured bytes or None, text bytes, result)] for every call."""
    prepare(workdir)
    rows = []
    async with stdio_client(params(workdir)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for tool, arguments, may_fail in calls():
                result = await session.call_tool(tool, arguments, read_timeout_seconds=600)
                text = sum(len(getattr(c, "text", "").encode()) for c in result.content)
                if result.is_error:
                    assert may_fail, f"{tool} failed: {result.content}"
                    rows.append((tool, arguments, None, text, result))
                    continue
                rows.append((tool, arguments, compact(result.structured_content), text, result))
                if tool == "verify":
                    s = result.structured_content
                    # By id; a binary from before issue 44 (the report's "before") takes the object.
                    by = {"verify_id": s["verify_id"]} if "verify_id" in s else {
                        "verify_result": s, "note": "n", "who": "w"}
                    recorded = await session.call_tool("record", {"target": "scale", **by})
                    assert not recorded.is_error, recorded.content
                    text = sum(len(getattr(c, "text", "").encode()) for c in recorded.content)
                    rows.append(("record", {}, compact(recorded.structured_content), text, recorded))
    return rows


async def case_every_tool_within_budget(workdir):
    for tool, arguments, size, _, result in await measure(workdir):
        if size is None:
            continue
        assert size <= BUDGET[tool], f"{tool} {arguments}: structuredContent {size} bytes > budget {BUDGET[tool]}"
        full = result.structured_content.get("full_result")
        if full:  # shortened: the full result is where the note says, and complete
            with open(os.path.join(workdir, full["path"])) as f:
                whole = json.load(f)
            assert compact(whole) > BUDGET[tool] and full["shortened"], full
            assert full["uri"] in [str(getattr(c, "uri", "")) for c in result.content], full


async def case_agent_follows_the_skill_on_structured_content(workdir):
    """The skill's loop, every decision read from structuredContent (never the text content)."""
    async with stdio_client(params(workdir)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(tool, arguments):
                result = await session.call_tool(tool, arguments, read_timeout_seconds=600)
                # The text only to say why a call failed: every decision below reads structuredContent.
                assert not result.is_error, f"{tool}: {[getattr(c, 'text', '') for c in result.content]}"
                s = result.structured_content
                assert isinstance(s, dict) and compact(s) <= BUDGET[tool], (tool, compact(s))
                return s

            made = await call("new_target", {"target": "scale", "from": "torch.nn.functional:gelu",
                                             "shape": "4096", "dtype": "fp32", "device": "cpu", "iters": 2,
                                             "flops": 8 * 4096})
            baseline = next(f for f in made["files"] if f.endswith("_baseline.py"))
            candidate = next(f for f in made["files"] if f.endswith("_candidate.py"))
            bench = await call("bench", {"script": baseline, "n": 5})
            floor = await call("roofline", {"card": "H200", **bench["roofline_inputs"],
                                            "ms": bench["stats"]["mean_ms"]})
            assert floor["measured"] is None or isinstance(floor["measured"], dict)
            assert floor["spec"]["bound"] in ("memory", "compute"), floor["spec"]
            traced = await call("torch_trace", {"script": baseline})
            assert traced["report"], "torch_trace named no report"
            top = await call("top_kernels", {"path": traced["report"]}) if traced["report"].endswith(
                (".csv", ".jsonl")) else None
            assert top is None or top["kernels"], top
            verdicts = []
            for _ in range(2):  # the untouched candidate, then once more: verify, then record by id
                verify = await call("verify", {"baseline": baseline, "candidate": candidate, "n": 5})
                verdicts.append(verify["verdict"])
                record = await call("record", {"target": made["target"], "verify_id": verify["verify_id"],
                                               "note": "untouched candidate", "who": "agent: the budget test"})
                assert record["log"] and record["verdict"] == verify["verdict"], record
                assert isinstance(record["beats_best"], bool)
            assert all(v in ("faster", "slower", "inconclusive") for v in verdicts), verdicts


def report():
    """Prints bytes per tool for HOTKERNEL_BINARY (before/after tables in docs/mcp.md)."""
    with tempfile.TemporaryDirectory(prefix="hotkernel-context-") as workdir:
        rows = anyio.run(measure, workdir)
    print(f"{'tool':<12} {'arguments':<52} {'structured':>10} {'text':>7} {'budget':>7}")
    for tool, arguments, size, text, _ in rows:
        shown = json.dumps({k: v for k, v in arguments.items() if k in ("path", "target", "n", "per_launch", "tool")})
        print(f"{tool:<12} {shown[:52]:<52} {size if size is not None else 'error':>10} {text:>7} {BUDGET[tool]:>7}")


if __name__ == "__main__":
    if "--report" in sys.argv:
        report()
    else:
        run_cases([
            ("every tool's structuredContent within its budget", case_every_tool_within_budget),
            ("an agent follows the skill on structuredContent alone", case_agent_follows_the_skill_on_structured_content),
        ], "hotkernel-budget-")
