# SPDX-License-Identifier: Apache-2.0
"""Issue 44's budgets on the GPU machine: every tool's structuredContent, from results made on the
card (a verify of the rmsnorm example, a trace profile, a ~500-kernel trace, the SASS of 500
kernels), through the official MCP Python SDK, against the budgets of tests/mcp/test_context_budget.py
(core/mcp/contextbudget.cpp). Prints one row per call; exits 1 when a result is over its budget.

    python3 bench/context_budget_gpu.py --binary PATH/hotkernel --many DIR
DIR holds many.trace.jsonl and the many_kernels executable (tests/data/capture/capture_many_kernels.sh).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "mcp"))
from test_context_budget import BUDGET, compact  # noqa: E402  (one table of budgets)


def calls(python):
    return [
        ("gpu_info", {}),
        ("top_kernels", {"path": "many.trace.jsonl", "n": 500}),
        ("top_kernels", {"path": "many.trace.jsonl"}),
        ("disasm", {"target": "many_kernels"}),
        ("new_target", {"target": "gelu", "from": "torch.nn.functional:gelu", "shape": "4096x4096",
                        "dtype": "fp32", "device": "cuda", "iters": 20}),
        ("bench", {"script": "rmsnorm_baseline.py", "n": 5}),
        ("verify", {"baseline": "rmsnorm_baseline.py", "candidate": "rmsnorm_candidate.py", "n": 5}),
        ("profile", {"command": [python, "-c", "import torch; x = torch.randn(1 << 22, device='cuda');"
                                 " [(x * 2).softmax(0).sum().item() for _ in range(3)]"], "tool": "trace"}),
        ("torch_trace", {"script": "rmsnorm_baseline.py"}),
    ]


async def measure(binary, workdir, python, only):
    rows = []
    env = dict(os.environ, HOTKERNEL_PYTHON=python)
    server = StdioServerParameters(command=binary, args=["mcp", "--headless"], cwd=workdir, env=env)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for tool, arguments in calls(python):
                if only and tool not in only:
                    continue
                result = await session.call_tool(tool, arguments, read_timeout_seconds=900)
                text = sum(len(getattr(c, "text", "").encode()) for c in result.content)
                size = None if result.is_error else compact(result.structured_content)
                note = "" if not result.is_error else getattr(result.content[0], "text", "")[:120]
                rows.append((tool, arguments, size, text, note))
                if tool == "verify" and not result.is_error:
                    s = result.structured_content
                    rows[-1] = (tool, arguments, size, text, f"{s.get('verdict')} {s.get('speedup')}")
                    recorded = await session.call_tool("record", {"target": "rmsnorm", "verify_id": s["verify_id"]})
                    rtext = sum(len(getattr(c, "text", "").encode()) for c in recorded.content)
                    rsize = None if recorded.is_error else compact(recorded.structured_content)
                    rows.append(("record", {"verify_id": "..."}, rsize, rtext, ""))
                if tool != "bench" or result.is_error:
                    continue
                inputs = result.structured_content.get("roofline_inputs") or {}
                ms = (result.structured_content.get("stats") or {}).get("mean_ms")
                if inputs and ms:
                    roof = await session.call_tool("roofline", {**inputs, "ms": ms})
                    rows.append(("roofline", {}, None if roof.is_error else compact(roof.structured_content),
                                 sum(len(getattr(c, "text", "").encode()) for c in roof.content), ""))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--many", required=True, help="folder with many.trace.jsonl and many_kernels")
    parser.add_argument("--only", default="", help="comma-separated tools (default: all)")
    args = parser.parse_args()
    python = os.environ.get("HOTKERNEL_PYTHON", sys.executable)
    with tempfile.TemporaryDirectory(prefix="hotkernel-budget-gpu-") as workdir:
        for name in ("rmsnorm_baseline.py", "rmsnorm_candidate.py", "kernels.py", "tuned_kernels.py",
                     "_hotkernel_contract.py"):
            shutil.copy(os.path.join(ROOT, "examples", name), workdir)
        for name in ("many.trace.jsonl", "many_kernels"):
            shutil.copy(os.path.join(args.many, name), workdir)
        rows = anyio.run(measure, os.path.abspath(args.binary), workdir, python,
                         [t for t in args.only.split(",") if t])
    try:
        card = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip()
    except FileNotFoundError:
        card = "a machine without nvidia-smi"
    print(f"structuredContent per tool on {card} (compact JSON bytes; budget from core/mcp/contextbudget.cpp)")
    print("| tool | arguments | structured | text | budget | within | note |")
    print("|---|---|---|---|---|---|---|")
    over = False
    for tool, arguments, size, text, note in rows:
        shown = json.dumps({k: v for k, v in arguments.items() if k in ("path", "target", "n", "tool", "script")})
        within = "error" if size is None else ("yes" if size <= BUDGET[tool] else "NO")
        over |= within == "NO"
        print(f"| {tool} | {shown} | {size if size is not None else '-'} | {text} | {BUDGET[tool]} | {within} | {note} |")
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
