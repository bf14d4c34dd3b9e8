#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the lent GPU machine (no Qt there): unpacks the hotkernel bundle that packaging/gpu-bundle.sh
# wrote to .carry/hotkernel-bundle.tar.xz and runs bench/reproduce_examples.py with its arguments.
# With --record, the new logs and LEADERBOARD.md come back as $OUT/results.tar.gz.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
# Each verify a process of its own (no `hotkernel serve`): what a fresh recording would do.
export HOTKERNEL_PYTHON=${HOTKERNEL_PYTHON:-$(command -v python3)} PYTHONUNBUFFERED=1 HOTKERNEL_NO_SESSION=1
export TRITON_CACHE_DIR=/tmp/triton-cache HOTKERNEL_CUBIN_CACHE=/tmp/cubin
python3 bench/reproduce_examples.py "$@"
if [ -n "${OUT:-}" ]; then
    tar -czf "$OUT/results.tar.gz" results LEADERBOARD.md
fi
