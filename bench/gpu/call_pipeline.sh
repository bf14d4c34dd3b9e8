#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call: hotkernel itself (carried as .carry/hotkernel-bundle.tar.xz) on the H200.
#   part1: gpu-info, calibrate --record, the CUDA rmsnorm flow (new/bench/verify/record), the
#          example loop for rmsnorm, softmax and gemv, and the demo session's profile/trace/SASS
#   part2: the example loop for decode_attention and int4_gemv, then bench/verify_speed.py
# Results (results/, LEADERBOARD.md, candidates, demo files, logs) come back as $OUT/PART.tar.gz.
set -u
part=${1:-part1}
root=$(pwd)
mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
export HOTKERNEL_PYTHON=$(command -v python3) PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/triton-cache
export HOTKERNEL_NATIVE_DIR=/tmp/native HOTKERNEL_TRACER=/tmp/native/libhotkernel_tracer.so
stage=/tmp/stage-$part; mkdir -p "$stage"
log() { echo "== $(date -u +%T) $*"; }
if [ ! -e /tmp/native/hotkernel-calibrate ]; then
    cmake -S core/native -B /tmp/native -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/native -j 16 >/dev/null
fi
if [ "$part" = part1 ]; then
    log gpu-info; hotkernel gpu-info
    log calibrate; timeout 120 hotkernel calibrate --record
    log "CUDA flow: new/bench/verify/record rmsnorm in a scratch dir"
    flow=/tmp/flow; mkdir -p $flow && cp examples/kernels.py examples/tuned_kernels.py $flow/ && cd $flow
    hotkernel new rmsnorm --from ./kernels.py:rmsnorm --shape 4096x8192 --extra w:8192 --flops 134217728 --dtype bf16
    hotkernel bench rmsnorm_baseline.py -n 7
    hotkernel --json verify rmsnorm_baseline.py rmsnorm_candidate.py -n 7 > v0.json && hotkernel record rmsnorm v0.json --note "untouched" --who "lead: bring-up check"
    cp "$root/bench/gpu/variants/rmsnorm__02-triton-row-w16.py" rmsnorm_candidate.py
    hotkernel verify rmsnorm_baseline.py rmsnorm_candidate.py -n 7 && hotkernel --json verify rmsnorm_baseline.py rmsnorm_candidate.py -n 7 > v1.json
    hotkernel record rmsnorm v1.json --note "Triton row kernel" --who "lead: bring-up check"
    cat LEADERBOARD.md; cp -r $flow "$stage/flow"; cd "$root"
    log "examples loop"; timeout 330 python3 bench/gpu/examples_loop.py rmsnorm softmax gemv
    log "demo data"; demo="$stage/demo"; mkdir -p "$demo/profiles"
    timeout 60 hotkernel profile --tool trace python3 examples/rmsnorm_candidate.py
    timeout 90 hotkernel profile --tool ncu --kernel-regex rmsnorm --launch-count 1 --set full --import-source python3 examples/rmsnorm_candidate.py
    timeout 90 hotkernel profile --tool ncu --launch-count 6 python3 examples/rmsnorm_baseline.py
    timeout 60 hotkernel torch-trace examples/rmsnorm_baseline.py > "$demo/torch-trace.txt"
    timeout 60 hotkernel --json disasm triton-cache --function rmsnorm > "$demo/disasm.json"
    cp -r profiles "$demo/"; cp -r /tmp/triton-cache "$demo/triton-cache"
else
    log "examples loop"; timeout 200 python3 bench/gpu/examples_loop.py decode_attention int4_gemv
    log "verify speed"; timeout 290 python3 bench/verify_speed.py --hotkernel "$(command -v hotkernel)" --budget 270
fi
cp -r results LEADERBOARD.md "$stage/" 2>/dev/null; cp examples/*_candidate.py "$stage/" 2>/dev/null
tar -C "$stage" -czf "$OUT/$part.tar.gz" .
log done
