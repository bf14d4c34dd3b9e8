#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call (no hotkernel binary needed): sweeps the decode-attention and int4 GEMV
# variants, times the rmsnorm/softmax row kernels with ncu, and checks the GEMM anchor.
# Everything it prints is also under $OUT.
set -u
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/triton-cache HOTKERNEL_CUBIN_CACHE=/tmp/cubin
log() { echo "== $(date -u +%T) $*"; }
log nvidia-smi; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
log sweep; timeout 300 python3 bench/gpu/sweep.py --only decode,int4 --out "$OUT/sweep.json" 2>&1 | tee "$OUT/sweep.txt"
log ncu rows; timeout 120 ncu --clock-control none -k 'regex:_rmsnorm|_softmax' --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv python3 bench/gpu/ncu_rows.py > "$OUT/ncu_rows.csv" 2> "$OUT/ncu_rows.err"; tail -3 "$OUT/ncu_rows.err"
python3 - "$OUT/ncu_rows.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; i_id = hdr.index("ID"); i_m = hdr.index("Metric Name"); i_u = hdr.index("Metric Unit"); i_v = hdr.index("Metric Value")
for r in rows[1:]:
    print(r[i_id], r[i_m], r[i_v], r[i_u])
PY
log gemm anchor; timeout 60 python3 bench/gpu/gemm_anchor.py 2>&1 | tee "$OUT/gemm_anchor.txt"
log done
