# SPDX-License-Identifier: Apache-2.0
"""The installed tree works as the build tree does (issue 44): `cmake --install` into a temporary
prefix, then, from that prefix alone, the native helpers are found there (not in the build tree),
`profile --tool trace` finds the tracer, the official MCP Python SDK initializes `hotkernel mcp`,
and a CPU verify runs.

Run from CTest with HOTKERNEL_BUILD_DIR (the build tree to install) and HOTKERNEL_EXPECT_TRACER
(1 when the build made the CUPTI tracer); HOTKERNEL_PYTHON names an interpreter with CPU torch.
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from caserunner import run_cases

BUILD = os.environ["HOTKERNEL_BUILD_DIR"]
EXPECT_TRACER = os.environ.get("HOTKERNEL_EXPECT_TRACER") == "1"
TORCH_PYTHON = os.environ.get("HOTKERNEL_PYTHON", "/usr/bin/python3")
PREFIX = tempfile.mkdtemp(prefix="hotkernel-install-")
INSTALLED = os.path.join(PREFIX, "bin", "hotkernel")


def clean_env():
    """The environment of a user of the installed tree: nothing that points into the build tree."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("HOTKERNEL_") or k in ("HOTKERNEL_NO_SESSION", "HOTKERNEL_SPARES")}
    env["HOTKERNEL_PYTHON"] = TORCH_PYTHON
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def run(args, cwd=None, timeout=600):
    return subprocess.run(args, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout)


def install():
    done = subprocess.run(["cmake", "--install", BUILD, "--prefix", PREFIX], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert os.access(INSTALLED, os.X_OK), f"{INSTALLED} was not installed"


def case_helpers_found_in_the_prefix(workdir):
    out = run([INSTALLED, "helpers"], cwd=workdir)
    assert out.returncode == 0, out.stderr
    found = dict(line.split(": ", 1) for line in out.stdout.splitlines() if ": " in line)
    private = os.path.join(PREFIX, "lib", "hotkernel") + os.sep
    assert found["hotkernel-supervise"].startswith(private), out.stdout
    if EXPECT_TRACER:
        assert found["libhotkernel_tracer.so"].startswith(private), out.stdout


def case_profile_trace_finds_the_tracer(workdir):
    if not EXPECT_TRACER:
        print("  (this build has no CUPTI tracer: no CUDA Toolkit at configure time; checking helpers only)")
        return
    out = run([INSTALLED, "profile", "--tool", "trace", "--", TORCH_PYTHON, "-c", "1"], cwd=workdir)
    said = out.stdout + out.stderr
    assert "is not here" not in said, said


async def case_mcp_initialize_and_cpu_verify(workdir):
    params = StdioServerParameters(command=INSTALLED, args=["mcp", "--headless"], cwd=workdir, env=clean_env())
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "hotkernel"
            made = await session.call_tool("new_target", {"target": "scale", "from": "torch.nn.functional:relu",
                                                          "shape": "256", "dtype": "fp32", "device": "cpu",
                                                          "iters": 2})
            assert not made.is_error, made.content
            verify = await session.call_tool("verify", {"baseline": "scale_baseline.py",
                                                        "candidate": "scale_candidate.py", "n": 3},
                                             read_timeout_seconds=600)
            assert not verify.is_error, verify.content
            assert verify.structured_content["verdict"] in ("faster", "slower", "inconclusive"), \
                verify.structured_content["verdict"]


if __name__ == "__main__":
    atexit.register(shutil.rmtree, PREFIX, ignore_errors=True)
    install()
    run_cases([
        ("the helpers are found in the prefix", case_helpers_found_in_the_prefix),
        ("profile --tool trace finds the installed tracer", case_profile_trace_finds_the_tracer),
        ("MCP initialize and a CPU verify from the prefix", case_mcp_initialize_and_cpu_verify),
    ], "hotkernel-install-run-")
