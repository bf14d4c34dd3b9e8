// SPDX-License-Identifier: Apache-2.0
// A CUDA program that launches about 500 distinct kernels, for issue 44's context budget: a real
// profile as long as a large program's (CUTLASS-style template instantiations give each kernel a
// name of its own; torch.compile'd chains did not: Inductor names kernels by their fused ops, and
// 480 chains gave 81 names). Sizes, grids, blocks and call counts vary with the instantiation, so
// the listing has the spread of a real one. Built and run by capture_many_kernels.sh:
//   nvcc -O2 -arch=native -o many_kernels many_kernels.cu && ./many_kernels
#include <cstdio>
#include <utility>

#include <cuda_runtime.h>

namespace {

constexpr int kScaleVariants = 400;
constexpr int kRowSumVariants = 100;
constexpr int kMaxElements = 1 << 20;

template <int K> __global__ void scaleVariant(float *y, const float *x, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = y[i] * (1.0f + K * 1e-3f) + x[i] * float(K % 7);
}

template <int K> __global__ void rowSumVariant(float *out, const float *x, int rows, int cols)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    float sum = 0.0f;
    for (int c = 0; c < cols; c += 1 + K % 4)
        sum += x[row * cols + c];
    out[row] = sum * (1.0f + K * 1e-3f);
}

template <int K> void launchScale(float *y, const float *x)
{
    const int n = kMaxElements >> (K % 6);
    const int block = 64 << (K % 3);
    for (int call = 0; call < 1 + K % 3; ++call)
        scaleVariant<K><<<(n + block - 1) / block, block>>>(y, x, n);
}

template <int K> void launchRowSum(float *out, const float *x)
{
    const int rows = 1024 << (K % 3);
    const int cols = kMaxElements / rows;
    rowSumVariant<K><<<(rows + 127) / 128, 128>>>(out, x, rows, cols);
}

template <int... Ks> void launchAllScale(std::integer_sequence<int, Ks...>, float *y, const float *x)
{
    (launchScale<Ks>(y, x), ...);
}

template <int... Ks> void launchAllRowSum(std::integer_sequence<int, Ks...>, float *out, const float *x)
{
    (launchRowSum<Ks>(out, x), ...);
}

} // namespace

int main()
{
    float *x = nullptr;
    float *y = nullptr;
    if (cudaMalloc(&x, kMaxElements * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&y, kMaxElements * sizeof(float)) != cudaSuccess) {
        std::fprintf(stderr, "many_kernels: cudaMalloc failed\n");
        return 1;
    }
    cudaMemset(x, 0, kMaxElements * sizeof(float));
    cudaMemset(y, 0, kMaxElements * sizeof(float));
    launchAllScale(std::make_integer_sequence<int, kScaleVariants>(), y, x);
    launchAllRowSum(std::make_integer_sequence<int, kRowSumVariants>(), y, x);
    const cudaError_t status = cudaDeviceSynchronize();
    if (status != cudaSuccess) {
        std::fprintf(stderr, "many_kernels: %s\n", cudaGetErrorString(status));
        return 1;
    }
    std::printf("launched %d distinct kernels\n", kScaleVariants + kRowSumVariants);
    cudaFree(x);
    cudaFree(y);
    return 0;
}
