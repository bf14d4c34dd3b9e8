#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call: checks the CUDA C++ decode attention against the fp32 reference and sweeps its
# configurations beside cuDNN SDPA and the Triton candidate (no hotkernel binary needed); with
# `loop`, then writes the two fastest correct configurations as variants and runs them through the
# example loop with hotkernel itself (carried as .carry/hotkernel-bundle.tar.xz): verify, record,
# keep or revert, three reproductions of n=7. Everything comes back under $OUT.
set -u
part=${1:-sweep}
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/triton-cache HOTKERNEL_CUBIN_CACHE=/tmp/cubin
log() { echo "== $(date -u +%T) $*"; }
log nvidia-smi; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
stamp=$(date -u +%Y-%m-%d-%H%M)
sweep="$OUT/decode-cuda-$stamp.json"
log check and sweep; timeout 300 python3 bench/gpu/check_decode_cuda.py --out "$sweep" 2>&1 | tee "$OUT/decode-cuda-$stamp.txt"
if [ "$part" = loop ] && [ -s "$sweep" ]; then
    python3 bench/gpu/decode_cuda_variants.py "$sweep" --first 4 || exit 1
    mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
    export HOTKERNEL_PYTHON=$(command -v python3)
    log "decode loop"; timeout 200 python3 bench/gpu/examples_loop.py decode_attention --skip-untouched --variants 04,05
    stage=/tmp/stage-loop; mkdir -p "$stage/variants"
    export HOTKERNEL_NATIVE_DIR=/tmp/native
    log "ncu: the kept candidate"
    timeout 90 hotkernel profile --tool ncu --kernel-regex 'decode_attention_w|_decode_' --launch-count 6 python3 examples/decode_attention_candidate.py > "$OUT/ncu-decode.txt" 2>&1
    tail -25 "$OUT/ncu-decode.txt"
    cp -r results LEADERBOARD.md "$stage/"; cp examples/decode_attention_candidate.py "$stage/"
    cp bench/gpu/variants/decode_attention__0[45]-* "$stage/variants/"
    tar -C "$stage" -czf "$OUT/loop.tar.gz" .
fi
log done
