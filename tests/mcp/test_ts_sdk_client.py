# SPDX-License-Identifier: Apache-2.0
"""End to end with the official MCP TypeScript SDK client (issue 18): unpacks the SDK tarball from
HOTKERNEL_MCP_TS_SDK (a directory holding node_modules.tgz) or $HOTKERNEL_SOURCE_DIR/../shared/mcp-ts-sdk,
puts ts_sdk_client.mjs beside it and runs it with node against `hotkernel mcp --headless`.

Exits 77 (CTest: skipped) with the reason when node or the SDK is absent, as on a user's machine.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def sdk_tarball():
    candidates = []
    if os.environ.get("HOTKERNEL_MCP_TS_SDK"):
        candidates.append(os.environ["HOTKERNEL_MCP_TS_SDK"])
    source = os.environ.get("HOTKERNEL_SOURCE_DIR", os.path.join(HERE, "..", ".."))
    candidates.append(os.path.join(source, "..", "shared", "mcp-ts-sdk"))
    for c in candidates:
        path = os.path.join(c, "node_modules.tgz")
        if os.path.isfile(path):
            return path
    return None


def main():
    node = shutil.which("node")
    tarball = sdk_tarball()
    if not node or not tarball:
        print("SKIP: " + ("node is not installed" if not node else
                          "the MCP TypeScript SDK tarball is absent (set HOTKERNEL_MCP_TS_SDK to the folder "
                          "holding node_modules.tgz)"))
        sys.exit(SKIP)
    binary = os.path.abspath(os.environ["HOTKERNEL_BINARY"])
    source = os.environ.get("HOTKERNEL_SOURCE_DIR", os.path.join(HERE, "..", ".."))
    with tempfile.TemporaryDirectory(prefix="hk-ts-sdk-") as sdk, \
            tempfile.TemporaryDirectory(prefix="hk-ts-work-") as workdir:
        subprocess.run(["tar", "-C", sdk, "-xzf", tarball], check=True)
        shutil.copy(os.path.join(HERE, "ts_sdk_client.mjs"), sdk)
        # A real ncu report, so that top_kernels has something to succeed on.
        shutil.copy(os.path.join(source, "tests", "data", "inspect", "eager.ncu-details.csv"),
                    os.path.join(workdir, "report.ncu-details.csv"))
        env = dict(os.environ)
        env.setdefault("HOTKERNEL_PYTHON", "/usr/bin/python3")
        done = subprocess.run([node, os.path.join(sdk, "ts_sdk_client.mjs"), binary, workdir], env=env,
                              timeout=600)
        sys.exit(0 if done.returncode == 0 else 1)


if __name__ == "__main__":
    main()
