#include <cuda_bf16.h>
// A small RMSNorm kernel, compiled only to capture real cuobjdump/nvcc output for the syntax tests.
extern "C" __global__ void rmsnorm(const __nv_bfloat16 *x, const __nv_bfloat16 *w, __nv_bfloat16 *y, int cols, float eps)
{
    __shared__ float partial[32];
    const __nv_bfloat16 *row = x + (size_t)blockIdx.x * cols;
    float sum = 0.f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) { float v = __bfloat162float(row[i]); sum += v * v; }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, o);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, o);
        if (threadIdx.x == 0) partial[0] = rsqrtf(sum / cols + eps);
    }
    __syncthreads();
    const float r = partial[0];
    for (int i = threadIdx.x; i < cols; i += blockDim.x)
        y[(size_t)blockIdx.x * cols + i] = __float2bfloat16(__bfloat162float(row[i]) * r * __bfloat162float(w[i]));
}
