#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call: decode attention's streaming probes (bench/gpu/decode_stream_probe.py): how fast
# each access order reads K and V with no arithmetic, the gemv candidate's single stream beside
# them, and the Triton and CUDA decode kernels with the stagger option, with the CUDA kernel's
# phases. No hotkernel binary needed; everything comes back under $OUT.
set -u
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/triton-cache HOTKERNEL_CUBIN_CACHE=/tmp/cubin
log() { echo "== $(date -u +%T) $*"; }
log nvidia-smi; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
stamp=$(date -u +%Y-%m-%d-%H%M)
log probe; timeout ${PROBE_TIMEOUT:-480} python3 bench/gpu/decode_stream_probe.py --out "$OUT/decode-probe-$stamp.json" ${PROBE_ARGS:-} 2>&1 | tee "$OUT/decode-probe-$stamp.txt"
log done
