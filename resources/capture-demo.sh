#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Records the demo session's files (resources/demo/) again on the GPU machine, with the commands
# resources/demo/MANIFEST.md lists. It lives beside the folder, not in it: everything in the folder
# is compiled into the binary as the demo session.
# Run from the repository root there, with the hotkernel bundle of packaging/gpu-bundle.sh at
# .carry/hotkernel-bundle.tar.xz; the files land in $OUT/demo (default /tmp/demo), laid out as
# resources/demo/ is, to be compared and copied in by hand (with LEADERBOARD.md remade by
# `hotkernel leaderboard` there).
set -u
out=${OUT:-/tmp}/demo
mkdir -p /tmp/hk && tar -C /tmp/hk -xJf .carry/hotkernel-bundle.tar.xz && . /tmp/hk/env.sh
export HOTKERNEL_PYTHON=$(command -v python3) PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/triton-cache
export HOTKERNEL_NATIVE_DIR=/tmp/native HOTKERNEL_TRACER=/tmp/native/libhotkernel_tracer.so
log() { echo "== $(date -u +%T) $*"; }
if [ ! -e /tmp/native/hotkernel-calibrate ]; then
    cmake -S core/native -B /tmp/native -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/native -j 16 >/dev/null
fi
# A scratch working directory holding the rmsnorm example, so that results/ and profiles/ start empty.
work=$(mktemp -d)
cp examples/rmsnorm_baseline.py examples/rmsnorm_candidate.py examples/_hotkernel_contract.py \
    examples/kernels.py examples/tuned_kernels.py "$work/"
mkdir -p "$out/sass" && cd "$work"

log "calibrate"; timeout 150 hotkernel calibrate --record
log "verifies: the kept candidate, three times at n=7, recorded"
# record accepts only a verify of its own process: verify and record in one call.
for i in 1 2 3; do
    hotkernel --json verify rmsnorm_baseline.py rmsnorm_candidate.py -n 7 --record \
        --note "kept candidate, reproduction $i of 3 (n=7)" --who "demo capture (resources/capture-demo.sh)" \
        > "v$i.json"
done
log "profiles"
timeout 60 hotkernel profile --tool trace python3 rmsnorm_candidate.py
timeout 90 hotkernel profile --tool ncu --kernel-regex _rmsnorm_kernel --launch-count 1 --set full --import-source \
    python3 rmsnorm_candidate.py
rep=$(ls -t profiles/*.ncu-rep | head -1)
timeout 60 ncu --import "$rep" --page raw --csv > "${rep%.ncu-rep}.raw.csv"
timeout 90 hotkernel profile --tool ncu --launch-count 6 python3 rmsnorm_baseline.py
timeout 60 hotkernel torch-trace rmsnorm_baseline.py > "$out/torch-trace.txt"
timeout 60 hotkernel --json disasm triton-cache --function rmsnorm > "$out/disasm.json"
log "SASS of the candidate's Triton cubin, and the ncu source page with stall samples"
cubin=$(find /tmp/triton-cache -name '_rmsnorm_kernel.cubin' | head -1)
cuobjdump -sass "$cubin" > "$out/sass/rmsnorm_candidate.sass"
ncu --import "$rep" --page source --print-source sass --csv > "$out/sass/rmsnorm_candidate.source.csv"
log "calls the demo's agent feed shows: bench of each script, gpu-info (calls/calls.json names them)"
mkdir -p "$out/calls"
for s in candidate baseline; do
    timeout 120 hotkernel bench "rmsnorm_$s.py" --n 7 --json > "$out/calls/bench-rmsnorm_$s.json" \
        2> "$out/calls/bench-rmsnorm_$s.stderr.txt"
done
timeout 60 hotkernel gpu-info --json > "$out/calls/gpu-info.json" 2> "$out/calls/gpu-info.stderr.txt"
rm -f profiles/*.ncu-rep profiles/*.nsys-rep  # the window reads the exports
cp -r results profiles "$out/"
log "done: $out"
