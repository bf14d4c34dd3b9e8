#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 41's witness measurements on the lent GPU machine, from the bundle packaging/gpu-bundle.sh
# made of this tree (.carry/hotkernel-bundle.tar.xz; its tracer must be format 2):
#  1. the format-2 tracer capture tst_witnesstrace reads (tests/data/measure/witness/CAPTURE.md);
#  2. honest verifies of the five examples (VERIFIES of each, -n N), and bench/witness_ratios.py
#     over them: the distribution behind WitnessTrace's bounds, and whether an honest verify was
#     refused by the witness (sequence faults, dropped records, a bound).
# Back in $OUT: rmsnorm-triton-graph-v2.jsonl and .line.json (copy both to
# tests/data/measure/witness/), ratios.txt, verifies.tar.gz (every verify's JSON).
#   bash bench/witness_gpu.sh            (TARGETS="rmsnorm gemv" VERIFIES=3 N=15 to change)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
export HOTKERNEL_PYTHON=${HOTKERNEL_PYTHON:-$(command -v python3)} PYTHONUNBUFFERED=1 HOTKERNEL_NO_SESSION=1
export TRITON_CACHE_DIR=/tmp/triton-cache HOTKERNEL_CUBIN_CACHE=/tmp/cubin
out=${OUT:-/tmp/witness-gpu}
mkdir -p "$out" /tmp/verifies
tracer=/tmp/hk/bin/libhotkernel_tracer.so

rm -f /tmp/witness-v2.jsonl
(cd examples && CUDA_INJECTION64_PATH=$tracer HOTKERNEL_TRACE_WITNESS=1 HOTKERNEL_TRACE_FILE=/tmp/witness-v2.jsonl \
    python3 rmsnorm_candidate.py --run 0 --judge-seed 7 >"$out/rmsnorm-triton-graph-v2.line.json")
cp /tmp/witness-v2.jsonl "$out/rmsnorm-triton-graph-v2.jsonl"
if ! grep -q '"format":2' "$out/rmsnorm-triton-graph-v2.jsonl"; then
    echo "witness_gpu: the bundle's tracer is not format 2: rebuild the bundle from this tree" >&2
    exit 1
fi

for t in ${TARGETS:-rmsnorm softmax gemv decode_attention int4_gemv}; do
    for i in $(seq 1 "${VERIFIES:-3}"); do
        hotkernel --json --quiet verify "examples/${t}_baseline.py" "examples/${t}_candidate.py" -n "${N:-15}" \
            >"/tmp/verifies/$t-$i.json" || echo "witness_gpu: verify $t $i exited $?" >&2
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[1], r.get("verdict"), r.get("speedup"), (r.get("reason") or "")[:200])' \
            "/tmp/verifies/$t-$i.json" >&2 || true
    done
done
python3 bench/witness_ratios.py /tmp/verifies | tee "$out/ratios.txt"
tar -C /tmp -czf "$out/verifies.tar.gz" verifies
