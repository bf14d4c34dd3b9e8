#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call for the demo session's SASS view: the rmsnorm candidate's SASS (cuobjdump of its
# Triton cubin) and the source page (SASS with stall samples) of the ncu report
# .carry/demo/rmsnorm_candidate-20261202-134714.ncu-rep that bench/gpu/call_session2.sh loop made.
set -u
export TRITON_CACHE_DIR=/tmp/tc PYTHONUNBUFFERED=1
rm -rf /tmp/tc && python3 examples/rmsnorm_candidate.py > /dev/null
cubin=$(find /tmp/tc -name '_rmsnorm_kernel.cubin' | head -1); echo "cubin: $cubin"
cuobjdump -sass "$cubin" > "$OUT/rmsnorm_candidate.sass" && head -5 "$OUT/rmsnorm_candidate.sass"
cp "${cubin%.cubin}.json" "$OUT/rmsnorm_candidate.triton.json"
ncu --import .carry/demo/rmsnorm_candidate-20261202-134714.ncu-rep --page source --print-source sass --csv > "$OUT/rmsnorm_candidate.source.csv"
head -3 "$OUT/rmsnorm_candidate.source.csv"; wc -l "$OUT"/*
echo "== decode kernels after the shared-loop refactor"; timeout 90 python3 bench/gpu/check_decode.py 2>&1 | grep -v Warning
