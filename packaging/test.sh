#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The test command: installs what is missing, builds, and runs every test (CTest).
# Tests labelled gpu skip with a reason on machines without an NVIDIA GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/packaging/setup-deps.sh"
bash "$root/packaging/check-format.sh"
python3 "$root/packaging/check-links.py" "$root"
bash "$root/packaging/build.sh"
cd "$root/build/release"
ctest --output-on-failure -j"${HOTKERNEL_JOBS:-$(nproc)}" --timeout 900
# Issue 39: the signal, session and MCP tests again under AddressSanitizer and UBSan (the SIGTERM
# race, 50 runs), in a Debug build of their own (build/asan).
bash "$root/packaging/asan-unit.sh" --signals
