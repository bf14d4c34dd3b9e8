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
