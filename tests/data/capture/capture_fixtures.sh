#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Captures real tool output on the GPU machine for the parser tests (tests/data/inspect/).
# Run on the H200 from the repository root: bash tests/data/capture/capture_fixtures.sh
# Writes everything into $OUT/fixtures.tar.gz and prints each command it ran.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/out}/fixtures
mkdir -p "$out"
export TRITON_CACHE_DIR=/tmp/triton-cache
log="$out/CAPTURE.log"
run() { echo "+ $*" | tee -a "$log"; "$@"; echo "rc=$?" >> "$log"; }

{ date -u; nvidia-smi -L; python3 -c 'import torch, triton; print(torch.__version__, triton.__version__, torch.version.cuda)'; ncu --version; cuobjdump --version | tail -1; } > "$out/versions.txt" 2>&1

# nvidia-smi, several forms
run sh -c "nvidia-smi > '$out/nvidia-smi.txt'"
run sh -c "nvidia-smi -q > '$out/nvidia-smi-q.txt'"
q=name,uuid,driver_version,memory.total,power.limit,compute_cap,clocks.max.sm,clocks.sm,clocks.mem,temperature.gpu,clocks_event_reasons.active,pci.bus_id
run sh -c "nvidia-smi --query-gpu=$q --format=csv > '$out/nvidia-smi-query.csv'"
run sh -c "nvidia-smi --query-gpu=$q --format=csv,noheader,nounits > '$out/nvidia-smi-query-nounits.csv'"
run sh -c "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv > '$out/nvidia-smi-compute-apps.csv'"
python3 - > "$out/device-properties.txt" <<'PY'
import torch
p = torch.cuda.get_device_properties(0)
print(p)
print("L2_cache_size", p.L2_cache_size, "multi_processor_count", p.multi_processor_count)
PY

# templated native kernel
run nvcc -O3 -arch=sm_90 -o /tmp/templated "$here/templated.cu"
run nvcc -O3 -arch=sm_90 -cubin -o "$out/templated.sm_90.cubin" "$here/templated.cu"
run sh -c "cuobjdump -sass /tmp/templated > '$out/templated.cuobjdump-sass.txt'"
run sh -c "nvdisasm -c '$out/templated.sm_90.cubin' > '$out/templated.nvdisasm.txt'"
run sh -c "cuobjdump -res-usage '$out/templated.sm_90.cubin' > '$out/templated.res-usage.txt'"
run ncu --clock-control none --set full --import-source yes -o /tmp/templated-full -f /tmp/templated
run sh -c "ncu --import /tmp/templated-full.ncu-rep --csv --page details > '$out/templated.ncu-details.csv'"
run sh -c "ncu --import /tmp/templated-full.ncu-rep --csv --page raw > '$out/templated.ncu-raw.csv'"
run sh -c "ncu --import /tmp/templated-full.ncu-rep --csv --page source --print-source sass > '$out/templated.ncu-source-sass.csv'"

# Triton rmsnorm: cache folder, SASS, and a full ncu report with source
run python3 "$here/triton_rmsnorm.py"
kdir=$(dirname "$(find /tmp/triton-cache -name 'rmsnorm_kernel.cubin' | head -1)")
run cp -r "$kdir" "$out/triton-cache-rmsnorm"
run sh -c "cuobjdump -sass '$kdir/rmsnorm_kernel.cubin' > '$out/triton-rmsnorm.cuobjdump-sass.txt'"
run sh -c "nvdisasm -c '$kdir/rmsnorm_kernel.cubin' > '$out/triton-rmsnorm.nvdisasm.txt'"
run sh -c "cuobjdump -res-usage '$kdir/rmsnorm_kernel.cubin' > '$out/triton-rmsnorm.res-usage.txt'"
run ncu --clock-control none --set full --import-source yes -k regex:rmsnorm -c 1 -o /tmp/rms-full -f python3 "$here/triton_rmsnorm.py"
run sh -c "ncu --import /tmp/rms-full.ncu-rep --csv --page details > '$out/triton-rmsnorm.ncu-details.csv'"
run sh -c "ncu --import /tmp/rms-full.ncu-rep --csv --page raw > '$out/triton-rmsnorm.ncu-raw.csv'"
run sh -c "ncu --import /tmp/rms-full.ncu-rep --csv --page source --print-source sass > '$out/triton-rmsnorm.ncu-source-sass.csv'"
run cp /tmp/rms-full.ncu-rep "$out/triton-rmsnorm.ncu-rep"

# Eager PyTorch: many library kernels, default section set, details + raw CSV
run sh -c "ncu --clock-control none --csv --page details -c 12 python3 '$here/eager_ops.py' > '$out/eager.ncu-details-stdout.csv'"
run ncu --clock-control none -c 12 -o /tmp/eager -f python3 "$here/eager_ops.py"
run sh -c "ncu --import /tmp/eager.ncu-rep --csv --page details > '$out/eager.ncu-details.csv'"
run sh -c "ncu --import /tmp/eager.ncu-rep --csv --page raw > '$out/eager.ncu-raw.csv'"
run sh -c "ncu --import /tmp/eager.ncu-rep --csv --print-units base --page details > '$out/eager.ncu-details-base-units.csv'"
run sh -c "ncu --import /tmp/eager.ncu-rep --csv --page details --print-summary per-kernel > '$out/eager.ncu-summary-per-kernel.csv'"

# torch.profiler
run python3 "$here/torch_profile.py" "$out"

# ncu without permission-like failure message, and nsys absence, for error-message tests
run sh -c "which nsys > '$out/which-nsys.txt' 2>&1"

ls -la "$out" > "$out/FILES.txt"
tar -C "$(dirname "$out")" -czf "${OUT:-/tmp/out}/fixtures.tar.gz" fixtures
ls -la "${OUT:-/tmp/out}"
