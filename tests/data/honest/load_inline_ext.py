# SPDX-License-Identifier: Apache-2.0
# A CUDA extension built with torch.utils.cpp_extension.load_inline (nvcc runs on the first import;
# later imports load it from torch's extension cache). Expected: faster.
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch
from torch.utils.cpp_extension import load_inline

_CUDA = r"""
#include <torch/extension.h>
#include <cuda_bf16.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void gelu_tanh_kernel(const __nv_bfloat16 *x, __nv_bfloat16 *y, long n) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long stride = (long)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        float v = __bfloat162float(x[i]);
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        y[i] = __float2bfloat16(0.5f * v * (1.0f + tanhf(inner)));
    }
}

torch::Tensor gelu_tanh(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kBFloat16 && x.is_contiguous(), "bf16 contiguous CUDA input");
    auto y = torch::empty_like(x);
    long n = x.numel();
    int threads = 256;
    int blocks = (int)std::min<long>((n + threads - 1) / threads, 65535L * 8);
    gelu_tanh_kernel<<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), reinterpret_cast<__nv_bfloat16 *>(y.data_ptr()), n);
    return y;
}
"""

_ext = load_inline(name="hotkernel_honest_gelu_tanh", cpp_sources="torch::Tensor gelu_tanh(torch::Tensor x);",
                   cuda_sources=_CUDA, functions=["gelu_tanh"], extra_cuda_cflags=["-O3"], verbose=False)


def fn(x):
    return _ext.gelu_tanh(x.contiguous())


if __name__ == "__main__":
    main(TARGET, fn)
