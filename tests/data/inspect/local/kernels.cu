// SPDX-License-Identifier: Apache-2.0
// Test fixture for disasm: a templated kernel (two instantiations) and an extern "C" one.
#include <cstdint>
template <typename T, int N>
__global__ void scale_add(T *out, const T *a, const T *b, T s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        T acc = 0;
        #pragma unroll
        for (int k = 0; k < N; ++k) acc += a[i] * s + b[(i + k) % n];
        out[i] = acc;
    }
}
extern "C" __global__ void copy_rows(float *dst, const float *src, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? src[i] : 0.f;
    __syncthreads();
    if (i < n) dst[i] = tile[blockDim.x - 1 - threadIdx.x];
}
template __global__ void scale_add<float, 4>(float *, const float *, const float *, float, int);
template __global__ void scale_add<double, 2>(double *, const double *, const double *, double, int);
