#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs every example once as a baseline and its untouched candidate as a worker for runs 0 and 1,
# printing the JSON lines: each must say "ok": true (on the H200: "timer": "graph").
# usage: examples/smoke.sh [python]   (default: $HOTKERNEL_PYTHON, else python3)
set -u
here=$(cd "$(dirname "$0")" && pwd)
python=${1:-${HOTKERNEL_PYTHON:-python3}}
cd "$here"
status=0
for target in rmsnorm softmax gemv decode_attention int4_gemv; do
    echo "== $target"
    "$python" "${target}_baseline.py" || status=1
    printf '{"op": "run", "run": 0}\n{"op": "run", "run": 1}\n{"op": "quit"}\n' |
        "$python" "${target}_candidate.py" --worker || status=1
done
exit $status
