#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call with hotkernel itself (carried as .carry/hotkernel-bundle.tar.xz, see
# packaging/gpu-bundle.sh). Parts:
#   loop:  calibrate --record; the library paths (baseline choice) and the new variants of
#          int4_gemv and decode_attention through the example loop; ncu of the row-kernel
#          candidates through `hotkernel profile`; the gpu-labelled tests
#   speed: bench/verify_speed.py (fresh/warm/adaptive wall time, 20 A/A, 10 deliberately slower)
# Results (results/, LEADERBOARD.md, candidates, logs) come back as $OUT/PART.tar.gz.
set -u
part=${1:-loop}
root=$(pwd)
mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
export HOTKERNEL_PYTHON=$(command -v python3) PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/triton-cache
export HOTKERNEL_NATIVE_DIR=/tmp/native HOTKERNEL_TRACER=/tmp/native/libhotkernel_tracer.so HOTKERNEL_CUBIN_CACHE=/tmp/cubin
stage=/tmp/stage-$part; mkdir -p "$stage"
log() { echo "== $(date -u +%T) $*"; }
if [ ! -e /tmp/native/hotkernel-calibrate ]; then
    cmake -S core/native -B /tmp/native -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/native -j 16 >/dev/null
fi
if [ "$part" = loop ]; then
    log calibrate; timeout 150 hotkernel calibrate --record
    log "int4 loop"; timeout 170 python3 bench/gpu/examples_loop.py int4_gemv --library --skip-untouched --variants 03,04
    log "decode loop"; timeout 120 python3 bench/gpu/examples_loop.py decode_attention --library --skip-untouched --variants 03
    log "ncu: row-kernel candidates"
    for t in rmsnorm softmax; do
        timeout 60 hotkernel profile --tool ncu --kernel-regex "_${t}_kernel" --launch-count 6 python3 examples/${t}_candidate.py > "$stage/ncu-$t.txt" 2>&1
        tail -25 "$stage/ncu-$t.txt"
    done
    log "demo: full ncu profile of the rmsnorm candidate, with its raw page (FLOPs and bytes per kernel)"
    timeout 90 hotkernel profile --tool ncu --kernel-regex _rmsnorm_kernel --launch-count 1 --set full --import-source python3 examples/rmsnorm_candidate.py | tail -5
    rep=$(ls -t profiles/*.ncu-rep | head -1)
    [ -n "$rep" ] && timeout 60 ncu --import "$rep" --page raw --csv > "${rep%.ncu-rep}.raw.csv" && ls -la profiles/
    log "gpu tests"
    for t in tst_gpuprobe_gpu tst_profile; do timeout 150 /tmp/hk/bin/$t 2>&1 | tail -15; done
    cp -r profiles "$stage/" 2>/dev/null
else
    log "tst_profile"; timeout 120 /tmp/hk/bin/tst_profile 2>&1 | tail -8
    log "verify speed"; timeout 470 python3 bench/verify_speed.py --hotkernel "$(command -v hotkernel)" --budget 440
fi
cp -r results LEADERBOARD.md "$stage/" 2>/dev/null; cp examples/*_candidate.py "$stage/" 2>/dev/null
tar -C "$stage" -czf "$OUT/$part.tar.gz" .
log done
