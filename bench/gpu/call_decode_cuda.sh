#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call: checks the CUDA C++ decode attention against the fp32 reference and sweeps its
# configurations beside cuDNN SDPA and the Triton candidate (no hotkernel binary needed); with
# `loop`, then writes the two fastest correct configurations as variants and runs them through the
# example loop with hotkernel itself (carried as .carry/hotkernel-bundle.tar.xz): verify, record,
# keep or revert, three reproductions of n=7. NCU=0 leaves out the ncu profiles (short on device
# time). Everything comes back under $OUT.
set -u
part=${1:-sweep}
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/triton-cache HOTKERNEL_CUBIN_CACHE=/tmp/cubin
log() { echo "== $(date -u +%T) $*"; }
log nvidia-smi; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
stamp=$(date -u +%Y-%m-%d-%H%M)
sweep="$OUT/decode-cuda-$stamp.json"
log check and sweep; timeout 300 python3 bench/gpu/check_decode_cuda.py --out "$sweep" ${SWEEP_ARGS:-} 2>&1 | tee "$OUT/decode-cuda-$stamp.txt"
if [ -s "$sweep" ] && [ "${NCU:-1}" = 1 ]; then
    log "ncu: the fastest CUDA configuration (speed of light, memory, warp states)"
    timeout 120 ncu --clock-control none -k regex:decode_attention --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
        --section LaunchStats python3 bench/gpu/run_decode_cuda.py "$sweep" > "$OUT/ncu-decode-cuda-$stamp.txt" 2>&1
    grep -E "config|Duration|DRAM Throughput|Memory Throughput|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles|Registers|Block Limit|Waves" "$OUT/ncu-decode-cuda-$stamp.txt" | head -40
fi
if [ "$part" = loop ] && [ -s "$sweep" ]; then
    first=${2:-4}
    python3 bench/gpu/decode_cuda_variants.py "$sweep" --first "$first" --only-if-faster || exit 0
    mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
    export HOTKERNEL_PYTHON=$(command -v python3)
    log "decode loop"; timeout 200 python3 bench/gpu/examples_loop.py decode_attention --skip-untouched --variants "$(printf '%02d,%02d' "$first" $((first + 1)))"
    stage=/tmp/stage-loop; mkdir -p "$stage/variants"
    export HOTKERNEL_NATIVE_DIR=/tmp/native
    log "ncu: the kept candidate"
    [ "${NCU:-1}" = 1 ] && timeout 90 hotkernel profile --tool ncu --kernel-regex 'decode_attention|_decode_' --launch-count 6 python3 examples/decode_attention_candidate.py > "$OUT/ncu-decode.txt" 2>&1
    tail -25 "$OUT/ncu-decode.txt"
    cp -r results LEADERBOARD.md "$stage/"; cp examples/decode_attention_candidate.py "$stage/"
    cp bench/gpu/variants/decode_attention__"$(printf '%02d' "$first")"-* bench/gpu/variants/decode_attention__"$(printf '%02d' $((first + 1)))"-* "$stage/variants/"
    tar -C "$stage" -czf "$OUT/loop.tar.gz" .
fi
log done
