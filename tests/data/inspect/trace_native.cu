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
