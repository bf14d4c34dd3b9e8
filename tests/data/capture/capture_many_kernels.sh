#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 44's capture on the GPU machine: a real profile of about 500 distinct kernels
# (many_kernels.cu) as hotkernel's CUPTI tracer writes it and as nsys's kernel summary, for the
# context-budget test (tests/mcp/test_context_budget.py). Run from the repository root with the
# bundle's hotkernel on PATH (. /tmp/hk/env.sh) and nvcc on the machine:
#   bash tests/data/capture/capture_many_kernels.sh
# Writes $OUT (default /tmp/many-kernels) with many.trace.jsonl, many.nsys-kernsum.csv (when nsys is
# there) and many-CAPTURE.log.txt (every command and its exit status); copy them to tests/data/inspect/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/many-kernels}
mkdir -p "$out"
log="$out/many-CAPTURE.log.txt"
run() { echo "+ $*" >> "$log"; "$@"; echo "rc=$?" >> "$log"; }
{ date -u; nvidia-smi -L; nvcc --version | tail -2; } > "$log" 2>&1

run nvcc -O2 -arch=native -o "$out/many_kernels" "$here/many_kernels.cu"
# hotkernel's tracer: the .trace.jsonl top_kernels reads (its path is in the profile's result).
(cd "$out" && run hotkernel profile --tool trace --json -- "$out/many_kernels" > "$out/many.profile.json")
python3 - "$out/many.profile.json" "$out/many.trace.jsonl" >> "$log" 2>&1 <<'PY'
import json, shutil, sys
d = json.load(open(sys.argv[1]))
shutil.copy(d["path"], sys.argv[2])
print("distinct kernels:", d.get("kernel_count"), "trace:", d["path"])
PY

# nsys's kernel summary of the same program, when nsys is installed.
if command -v nsys > /dev/null; then
    run nsys profile -o "$out/many" --force-overwrite true "$out/many_kernels"
    run nsys stats --report cuda_gpu_kern_sum --format csv --output "$out/many" "$out/many.nsys-rep"
    mv "$out"/many_cuda_gpu_kern_sum.csv "$out/many.nsys-kernsum.csv" 2>/dev/null
fi
ls -la "$out" >> "$log"
