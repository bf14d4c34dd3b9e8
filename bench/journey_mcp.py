# SPDX-License-Identifier: Apache-2.0
"""Issue 21's journey through MCP: the official Python SDK drives `hotkernel mcp` in WORKDIR through
torch_trace, profile (ncu, the kernel picked by its demangled name), disasm of the exported source
page, new_target from the trace row, verify and record, printing each call's time.

python journey_mcp.py WORKDIR
python journey_mcp.py --write-candidate OP PATH   (writes the Triton candidate for gelu or layer_norm)
"""
import asyncio
import json
import os
import re
import sys
import time

CANDIDATE_HEAD = '''"""Candidate: a Triton kernel written for issue 21's journey (bench/journey_mcp.py)."""
from _hotkernel_contract import load_function, main  # first: keeps stdout for the protocol
from {op}_baseline import TARGET

import torch
import triton
import triton.language as tl
'''

CANDIDATES = {
    "gelu": '''

@triton.jit
def _gelu_tanh(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tanh = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    tl.store(Y + offs, (0.5 * x * (1.0 + tanh)).to(Y.dtype.element_ty), mask=mask)


def fn(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    _gelu_tanh[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
    return y


if __name__ == "__main__":
    main(TARGET, fn)
''',
    "layer_norm": '''

@triton.jit
def _layer_norm(X, W, B, Y, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, 0) / N
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, 0) / N + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    tl.store(Y + row * N + cols, (d * rstd * w + b).to(Y.dtype.element_ty), mask=mask)


def fn(x, weight, bias):
    n = x.shape[-1]
    rows = x.reshape(-1, n).contiguous()
    y = torch.empty_like(rows)
    _layer_norm[(rows.shape[0],)](rows, weight, bias, y, n, 1e-5, BLOCK=triton.next_power_of_2(n), num_warps=4)
    return y.view_as(x)


if __name__ == "__main__":
    main(TARGET, fn)
''',
}


def write_candidate(op, path):
    if op not in CANDIDATES:
        sys.exit("no candidate written for %s (only gelu and layer_norm)" % op)
    with open(path, "w") as f:
        f.write(CANDIDATE_HEAD.format(op=op) + CANDIDATES[op])


async def journey(workdir):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the SDK's folder is the client's, not the torch interpreter's
    params = StdioServerParameters(command="hotkernel", args=["mcp"], cwd=workdir, env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(name, arguments):
                started = time.perf_counter()
                result = await session.call_tool(name, arguments)
                took = time.perf_counter() - started
                text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
                # SDK 1.x spells them isError/structuredContent, 2.x is_error/structured_content.
                failed = getattr(result, "is_error", getattr(result, "isError", False))
                structured = getattr(result, "structured_content", getattr(result, "structuredContent", None))
                print("%-12s %6.1f s  error=%s  %s" % (name, took, failed, json.dumps(arguments)[:160]))
                print("    " + "\n    ".join(text.splitlines()[:14]))
                if failed:
                    raise SystemExit("%s failed: %s" % (name, text[:2000]))
                return structured or {}

            trace = await call("torch_trace", {"script": "transformer_block.py"})
            skip = re.compile(r"nvjet|gemm|cutlass|xmma|sdpa|flash|fmha|attention", re.I)
            row = next(r for r in trace["op_rows"] if r["kernels"] and not skip.search(r["kernels"][0]["name"]))
            op = row["name"].split("::")[-1]
            print("picked row %d (%s): %s" % (row["row"], op, row["kernels"][0]["name"][:120]))
            profiled = await call("profile", {"command": ["transformer_block.py", "--steps", "1", "--layers", "1"],
                                              "tool": "ncu", "kernel_regex": op, "set": "full", "launch_count": 1,
                                              "name": "journey-mcp-ncu"})
            await call("top_kernels", {"path": profiled["summary_csv"], "n": 1})
            await call("disasm", {"target": profiled["source_csv"], "hot": 8, "max_lines": 5})
            made = await call("new_target", {"from_trace": trace["report"], "op": row["row"], "out_dir": "target"})
            write_candidate(op, os.path.join(workdir, "target", "%s_candidate.py" % op))
            verdict = await call("verify", {"baseline": "target/%s_baseline.py" % op,
                                            "candidate": "target/%s_candidate.py" % op, "n": 7})
            await call("record", {"target": made["target"], "verify_result": verdict,
                                  "note": "Triton %s from the journey over MCP (issue 21)" % op,
                                  "who": "agent: journey helper"})


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--write-candidate":
        write_candidate(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    asyncio.run(journey(os.path.abspath(sys.argv[1])))


if __name__ == "__main__":
    main()
