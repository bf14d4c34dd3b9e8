#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 21's captures on the GPU machine: an execution trace of transformer_block.py with the chrome
# trace and torch_trace document it was joined with, ncu reports of its gelu kernel picked by its
# demangled name (details, raw and source pages), what ncu prints when nothing matches, and where the
# CUDA tools are on that machine. Run from the repository root: bash tests/data/capture/capture_journey.sh
# Writes $OUT/journey-fixtures.tar.gz; every command is in journey-CAPTURE.log.txt with its exit status.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=$(cd "$here/../../../resources/scripts" && pwd)
out=/tmp/journey-fixtures
mkdir -p "$out"
log="$out/journey-CAPTURE.log.txt"
run() { echo "+ $*" >> "$log"; "$@"; echo "rc=$?" >> "$log"; }
model="$here/transformer_block.py"

{ date -u; nvidia-smi -L; python3 -c 'import sys, torch, triton; print(sys.executable, torch.__version__, triton.__version__, torch.version.cuda)'; ncu --version | tail -1; } > "$out/journey-versions.txt" 2>&1
# Where the tools are: PATH, the interpreter's packages (Triton's bundled binaries, NVIDIA wheels), /opt/nvidia.
{
  for t in ncu nsys cuobjdump nvdisasm ptxas; do echo "which $t: $(command -v $t)"; done
  echo "CUDA_HOME=${CUDA_HOME:-}"
  python3 - <<'PY'
import os, site, sys
print("sys.prefix", sys.prefix)
for d in site.getsitepackages():
    for sub in ("triton/backends/nvidia/bin", "nvidia"):
        p = os.path.join(d, sub)
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                if os.path.basename(root) == "bin":
                    print(root, sorted(files))
PY
  ls -d /opt/nvidia/nsight-compute/* /opt/nvidia/nsight-systems/* 2>&1
} > "$out/journey-tools.txt" 2>&1

# The execution trace and the join (the torch_trace wrapper hotkernel ships).
run python3 "$res/torch_trace.py" --top 20 --chrome-trace "$out/journey.kineto.json" \
    --execution-trace "$out/journey.et.json" "$model" --steps 2 --layers 2 > "$out/journey.torch-trace.json"

# ncu by the name users see, and what happens without it.
run sh -c "ncu --clock-control none -k regex:gelu -c 1 python3 '$model' --steps 1 --layers 1 > '$out/journey.ncu-base-regex.txt' 2>&1"
run sh -c "ncu --clock-control none --kernel-name-base demangled -k 'regex:(?i)GELU' -c 1 python3 '$model' --steps 1 --layers 1 > '$out/journey.ncu-demangled-ci.txt' 2>&1"
run sh -c "ncu --clock-control none --kernel-name-base demangled -k 'regex:(?i)nosuchkernel' -c 1 python3 '$model' --steps 1 --layers 1 > '$out/journey.ncu-nomatch.txt' 2>&1"
run ncu --clock-control none --kernel-name-base demangled -k 'regex:(?i)gelu' -c 2 --set full --import-source yes \
    -o /tmp/journey-gelu -f python3 "$model" --steps 1 --layers 2
run sh -c "ncu --import /tmp/journey-gelu.ncu-rep --csv --page details > '$out/journey-gelu.ncu-details.csv'"
run sh -c "ncu --import /tmp/journey-gelu.ncu-rep --csv --page raw > '$out/journey-gelu.ncu-raw.csv'"
run sh -c "ncu --import /tmp/journey-gelu.ncu-rep --csv --page source --print-source sass > '$out/journey-gelu.ncu-source-sass.csv'"
# Two kernels in one report: the layer norm as well, for the per-kernel source export.
run ncu --clock-control none --kernel-name-base demangled -k 'regex:(?i)layer_?norm|gelu' -c 2 --set full --import-source yes \
    -o /tmp/journey-two -f python3 "$model" --steps 1 --layers 1
run sh -c "ncu --import /tmp/journey-two.ncu-rep --csv --page details > '$out/journey-two.ncu-details.csv'"
run sh -c "ncu --import /tmp/journey-two.ncu-rep --csv --page source --print-source sass > '$out/journey-two.ncu-source-sass.csv'"
run sh -c "ncu --import /tmp/journey-two.ncu-rep --csv --page source --print-source sass --kernel-name-base demangled -k 'regex:(?i)gelu' > '$out/journey-two.gelu-only.ncu-source-sass.csv' 2>&1"
run sh -c "ncu --import /tmp/journey-two.ncu-rep --csv --page source --print-source sass --print-kernel-base demangled --kernel-name 'regex:(?i)gelu' > '$out/journey-two.gelu-only-b.ncu-source-sass.csv' 2>&1"
run sh -c "ncu --import /tmp/journey-two.ncu-rep --csv --page source --print-source sass --launch-skip 1 --launch-count 1 > '$out/journey-two.second.ncu-source-sass.csv' 2>&1"
cp "$log" "$out/"
tar -C /tmp -czf "${OUT:-/tmp}/journey-fixtures.tar.gz" journey-fixtures
