#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call: decode attention's streaming probes (bench/gpu/decode_stream_probe.py): how fast
# each access order reads K and V with no arithmetic, the gemv candidate's single stream beside
# them, and the Triton and CUDA decode kernels with the stagger and tagged-combine options, with the
# CUDA kernel's phases. Then, when the fastest correct kernel beats the kept candidate in the same
# run and the hotkernel bundle was carried (.carry/hotkernel-bundle.tar.xz), the example loop with
# hotkernel itself: its two fastest configurations (MEASURE=decode_split_sweep: the many-split Triton
# sweep instead of the probe) as variants FIRST and FIRST+1 (default 08),
# verified, recorded, kept or reverted; or, when none is faster and REPRODUCE says what changed in
# the code the kept candidate calls, three recorded verifies of n=7 of it as it stands. Everything
# comes back under $OUT.
set -u
first=${1:-8}
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/triton-cache HOTKERNEL_CUBIN_CACHE=/tmp/cubin
log() { echo "== $(date -u +%T) $*"; }
log nvidia-smi; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
stamp=$(date -u +%Y-%m-%d-%H%M)
measure=${MEASURE:-decode_stream_probe}  # or decode_split_sweep: the Triton kernels with many splits
probe="$OUT/$measure-$stamp.json"
log "$measure"; timeout ${PROBE_TIMEOUT:-330} python3 "bench/gpu/$measure.py" --out "$probe" ${MEASURE_ARGS:-} 2>&1 | tee "$OUT/$measure-$stamp.txt"
if [ -s "$probe" ] && [ -f .carry/hotkernel-bundle.tar.xz ]; then
    if python3 bench/gpu/decode_cuda_variants.py "$probe" --first "$first" --only-if-faster; then
        loop_args=(--skip-untouched --variants "$(printf '%02d,%02d' "$first" $((first + 1)))")
    elif [ -n "${REPRODUCE:-}" ]; then  # no faster configuration: re-verify the kept one after a source change
        loop_args=(--reproduce "$REPRODUCE")
    else
        log done; exit 0
    fi
    mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
    export HOTKERNEL_PYTHON=$(command -v python3) HOTKERNEL_NATIVE_DIR=/tmp/native
    log "decode loop ${loop_args[*]}"; timeout ${LOOP_TIMEOUT:-230} python3 bench/gpu/examples_loop.py decode_attention "${loop_args[@]}"
    stage=/tmp/stage-loop; mkdir -p "$stage/variants"
    cp -r results LEADERBOARD.md "$stage/"; cp examples/decode_attention_candidate.py "$stage/"
    cp bench/gpu/variants/decode_attention__"$(printf '%02d' "$first")"-* bench/gpu/variants/decode_attention__"$(printf '%02d' $((first + 1)))"-* "$stage/variants/" 2>/dev/null
    tar -C "$stage" -czf "$OUT/loop.tar.gz" .
fi
log done
