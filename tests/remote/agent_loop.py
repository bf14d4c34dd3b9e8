# SPDX-License-Identifier: Apache-2.0
"""An agent's whole loop on a remote host (issue 24): the official MCP Python SDK launches
`hotkernel mcp` with HOTKERNEL_HOST set, as an agent's .mcp.json would, and calls new_target,
bench, verify and record for a tiny CPU target (its workers confined there: issue 41).

    python agent_loop.py WORKDIR TARGET

Run by tst_remotessh and tst_remoteslurm, which start the real sshd or Slurm and pass the host in
the environment (HOTKERNEL_BINARY, HOTKERNEL_HOST, HOTKERNEL_SSH_CONFIG, ...). Prints one JSON
object (each call's structured result and the progress messages the server sent) and exits 0, or
says on stderr which call failed and exits 1. The C++ side checks what the results say.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

# A remote verify on a loaded two-core CI machine: connection, copy, two workers, the judge.
CALL_LIMIT = 300.0


async def main(workdir, target):
    params = StdioServerParameters(command=os.environ["HOTKERNEL_BINARY"], args=["mcp"], cwd=workdir,
                                   env=dict(os.environ))
    progress = []

    async def on_progress(value, total, message):
        progress.append(message or "")

    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(name, arguments):
                result = await session.call_tool(name, arguments, read_timeout_seconds=CALL_LIMIT,
                                                 progress_callback=on_progress)
                if result.is_error:
                    text = " ".join(getattr(c, "text", "") for c in result.content)
                    raise SystemExit("%s failed: %s" % (name, text))
                out[name] = result.structured_content
                return result.structured_content

            await call("new_target", {"target": target, "from": "torch.nn.functional:gelu", "shape": "256x512",
                                      "dtype": "fp32", "device": "cpu", "iters": 10, "out_dir": "agent"})
            baseline, candidate = "agent/%s_baseline.py" % target, "agent/%s_candidate.py" % target
            await call("bench", {"script": baseline, "n": 2})
            verify = await call("verify", {"baseline": baseline, "candidate": candidate, "n": 3})
            await call("record", {"target": target, "verify_result": verify, "note": "an agent over MCP",
                                  "who": "agent: the MCP Python SDK test client"})
    out["progress"] = progress
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
