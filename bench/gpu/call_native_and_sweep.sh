#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One GPU-machine call: the native helpers (build, calibrate, tracer captures) and a sweep of the
# example kernels' configurations. Everything comes back as $OUT/native-and-sweep.tar.gz.
set -u
export PYTHONUNBUFFERED=1
stage=/tmp/native-and-sweep
mkdir -p "$stage"
OUT="$stage/native" bash tests/gpu/run_native.sh > "$stage/native.log" 2>&1
echo "native rc=$?"; tail -5 "$stage/native.log"
(cd bench/gpu && timeout 330 python3 sweep.py --quick --only gemv,decode,int4 --out "$stage/sweep3.json") 2>&1 \
    | grep -v -i warn | tee "$stage/sweep3.txt"
tar -C "$stage" -czf "$OUT/native-and-sweep.tar.gz" .
