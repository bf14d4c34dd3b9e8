// SPDX-License-Identifier: Apache-2.0
// Fixture source: a templated CUDA kernel whose demangled name carries commas, a char
// literal and a nested template, to test parsers on awkward names.
#include <cstdio>
#include <cuda_runtime.h>

template <typename T, int N> struct Pair { T a[N]; };

template <typename T, int Unroll, char Tag>
__global__ void scaled_add(const T *__restrict__ x, T *__restrict__ y, Pair<T, 2> coef, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * Unroll;
#pragma unroll
    for (int k = 0; k < Unroll; ++k)
        if (i + k < n)
            y[i + k] = coef.a[0] * x[i + k] + coef.a[1] * y[i + k] + T(Tag == 'q');
}

int main()
{
    const int n = 1 << 26;
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    cudaMemset(y, 0, n * sizeof(float));
    Pair<float, 2> c{{2.0f, 0.5f}};
    for (int r = 0; r < 3; ++r)
        scaled_add<float, 4, 'q'><<<(n / 4 + 255) / 256, 256>>>(x, y, c, n);
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("templated: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
