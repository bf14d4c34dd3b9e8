#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run ON THE GPU MACHINE from the repository root (no Qt needed there): builds core/native with
# plain CMake + nvcc, runs hotkernel-calibrate, runs a small torch script and a small native CUDA
# program under the CUPTI tracer, and captures nvidia-smi query output for the parser tests.
# Everything lands in $OUT (default /tmp/hotkernel-native-out); copy the captures into
# tests/data/inspect/. Takes about a minute; stops at 3 minutes at the latest.
#   bash tests/gpu/run_native.sh
set -u
OUT=${OUT:-/tmp/hotkernel-native-out}
BUILD=${HOTKERNEL_NATIVE_BUILD:-/tmp/hotkernel-native-build}
PY=${HOTKERNEL_PYTHON:-python3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
LOG="$OUT/run_native.log"
: > "$LOG"
step() { echo "== $*" | tee -a "$LOG"; }
# Keeps one step from eating the whole budget.
run() { local limit=$1; shift; echo "\$ $*" >> "$LOG"; timeout "$limit" "$@"; }

step "environment"
{ date -u; uname -a; nvidia-smi -L; nvcc --version | tail -2; cmake --version | head -1
  find /usr/local/cuda/ -name cupti.h -o -name 'libcupti.so*' 2>/dev/null; } >> "$LOG" 2>&1

step "build core/native"
run 120 cmake -S "$ROOT/core/native" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >> "$LOG" 2>&1 &&
run 120 cmake --build "$BUILD" -j 8 >> "$LOG" 2>&1 || { echo "build failed; see $LOG"; exit 1; }
TRACER="$BUILD/libhotkernel_tracer.so"
CALIBRATE="$BUILD/hotkernel-calibrate"

step "nvidia-smi captures"
FIELDS=name,uuid,driver_version,memory.total,memory.used,power.limit,compute_cap,clocks.max.sm,clocks.sm,clocks.mem,temperature.gpu,clocks_event_reasons.active,utilization.gpu,pci.bus_id
{
  echo "# nvidia-smi captures, $(date -u +%FT%TZ), $(nvidia-smi -L | head -1)"
  echo "nvidia-smi --query-gpu=$FIELDS --format=csv,noheader,nounits > nvidia-smi-query-noheader.csv"
  echo "nvidia-smi --query-gpu=$FIELDS --format=csv,nounits > nvidia-smi-query-header.csv"
  echo "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader,nounits > nvidia-smi-apps.csv (while the torch script ran)"
} > "$OUT/nvidia-smi-commands.txt"
nvidia-smi --query-gpu=$FIELDS --format=csv,noheader,nounits > "$OUT/nvidia-smi-query-noheader.csv" 2>> "$LOG"
nvidia-smi --query-gpu=$FIELDS --format=csv,nounits > "$OUT/nvidia-smi-query-header.csv" 2>> "$LOG"
nvidia-smi > "$OUT/nvidia-smi-plain.txt" 2>> "$LOG"

step "calibrate"
run 90 "$CALIBRATE" > "$OUT/calibrate.json" 2>> "$LOG"
echo "rc=$? $(cat "$OUT/calibrate.json")" | tee -a "$LOG"
echo "$CALIBRATE > calibrate.json" > "$OUT/calibrate-command.txt"

step "tracer: torch script"
cat > "$OUT/trace_torch.py" <<'PYEOF'
# A few kernels of different kinds: GEMM (cuBLAS), softmax, layer norm, an elementwise op.
import torch
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    y = x @ w
    z = torch.softmax(y.float(), dim=-1)
    n = torch.nn.functional.layer_norm(z, (4096,))
    q = n * 2.0 + 1.0
torch.cuda.synchronize()
import os, sys, time
open(sys.argv[1], "w").close()  # tells the script to capture nvidia-smi apps now
time.sleep(3)
print("torch", torch.__version__, "cuda", torch.version.cuda, float(q.sum()))
PYEOF
rm -f "$OUT/trace-torch.jsonl"
rm -f "$OUT/.torch-ready"
run 60 env CUDA_INJECTION64_PATH="$TRACER" HOTKERNEL_TRACE_FILE="$OUT/trace-torch.jsonl" "$PY" "$OUT/trace_torch.py" "$OUT/.torch-ready" >> "$LOG" 2>&1 &
TORCH_PID=$!
for _ in $(seq 1 100); do [ -e "$OUT/.torch-ready" ] && break; sleep 0.3; done
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader,nounits > "$OUT/nvidia-smi-apps.csv" 2>> "$LOG"
wait $TORCH_PID; rc=$?; rm -f "$OUT/.torch-ready"; echo "torch rc=$rc lines=$(wc -l < "$OUT/trace-torch.jsonl" 2>/dev/null)" | tee -a "$LOG"
echo "CUDA_INJECTION64_PATH=$TRACER HOTKERNEL_TRACE_FILE=trace-torch.jsonl $PY trace_torch.py" > "$OUT/trace-torch-command.txt"

step "tracer: native CUDA program"
cat > "$OUT/trace_native.cu" <<'CUEOF'
// Kernels whose names have templates, commas, namespaces and an extern "C" one, on two streams.
#include <cstdio>
#include <cuda_runtime.h>
namespace demo {
template <typename T, int Unroll>
__global__ void scale(T *p, int n, T factor) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * Unroll;
    for (int u = 0; u < Unroll; ++u) if (i + u < n) p[i + u] *= factor;
}
struct Pair { int a, b; };
template <typename A, typename B>
__global__ void combine(A *out, const B *in, Pair pr, int n) {
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? float(in[i]) : 0.f;
    __syncthreads();
    if (i < n) out[i] = A(tile[threadIdx.x] * pr.a + pr.b);
}
}
extern "C" __global__ void plain_fill(float *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 1.0f;
}
int main() {
    const int n = 1 << 22;
    float *f; double *d;
    cudaMalloc(&f, n * sizeof(float)); cudaMalloc(&d, n * sizeof(double));
    cudaStream_t s1, s2; cudaStreamCreate(&s1); cudaStreamCreate(&s2);
    for (int k = 0; k < 4; ++k) {
        plain_fill<<<n / 256, 256, 0, s1>>>(f, n);
        demo::scale<float, 4><<<n / 1024, 256, 0, s1>>>(f, n, 2.0f);
        demo::combine<double, float><<<n / 128, 128, 128 * sizeof(float), s2>>>(d, f, demo::Pair{3, 1}, n);
    }
    cudaDeviceSynchronize();
    printf("native done: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
CUEOF
run 60 nvcc -O2 -arch=sm_90 -o "$BUILD/trace_native" "$OUT/trace_native.cu" >> "$LOG" 2>&1
rm -f "$OUT/trace-native.jsonl"
run 30 env CUDA_INJECTION64_PATH="$TRACER" HOTKERNEL_TRACE_FILE="$OUT/trace-native.jsonl" "$BUILD/trace_native" >> "$LOG" 2>&1
echo "native rc=$? lines=$(wc -l < "$OUT/trace-native.jsonl" 2>/dev/null)" | tee -a "$LOG"
echo "nvcc -O2 -arch=sm_90 -o trace_native trace_native.cu && CUDA_INJECTION64_PATH=$TRACER HOTKERNEL_TRACE_FILE=trace-native.jsonl ./trace_native" > "$OUT/trace-native-command.txt"

step "quick look"
head -c 1500 "$OUT/trace-native.jsonl" | tee -a "$LOG"; echo
head -n 3 "$OUT/trace-torch.jsonl" | cut -c 1-400 | tee -a "$LOG"
cat "$OUT/nvidia-smi-query-noheader.csv" | tee -a "$LOG"
ls -la "$OUT" | tee -a "$LOG"
