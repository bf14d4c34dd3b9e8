# SPDX-License-Identifier: Apache-2.0
"""The int4 GEMV of int4_gemv.cu (CUDA C++), for candidates of the int4_gemv target."""
import os

import torch

import cuda_launch

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "int4_gemv.cu")
_modules = {}

# Rows per warp and warps per block: int4_gemv.cu is built for 2 rows per warp (the other choices
# measured slower; docs/examples.md).
INT4_CUDA_CONFIG = dict(rows=2, warps=16)
_BUILT_ROWS = 2


def _module():
    device = torch.cuda.current_device()
    if device not in _modules:
        _modules[device] = cuda_launch.CudaModule(cuda_launch.compile_cubin(_SOURCE, device))
    return _modules[device]


def int4_gemv_cuda(x, w_nibbles, scales_zeros, group_size=128, config=None):
    """x [1, K] bf16, w_nibbles uint8 [N, K/2] (even k high), scales_zeros bf16 [K/128, N, 2] -> [1, N] bf16."""
    cfg = dict(INT4_CUDA_CONFIG if config is None else config)
    n, half_k = w_nibbles.shape
    k = 2 * half_k
    if group_size != 128 or k % 1024 != 0:
        raise ValueError("int4_gemv_cuda handles group 128 and K a multiple of 1024 (got group %d, K %d)" % (group_size, k))
    if x.dtype != torch.bfloat16 or scales_zeros.dtype != torch.bfloat16 or w_nibbles.dtype != torch.uint8:
        raise ValueError("int4_gemv_cuda wants bf16 x and scales_zeros and uint8 nibbles")
    if x.numel() != k or tuple(scales_zeros.shape) != (k // 128, n, 2):
        raise ValueError("shapes do not match: x %s, w_nibbles %s, scales_zeros %s" % (tuple(x.shape), tuple(w_nibbles.shape), tuple(scales_zeros.shape)))
    if not (x.is_contiguous() and w_nibbles.is_contiguous() and scales_zeros.is_contiguous()):
        raise ValueError("int4_gemv_cuda wants contiguous inputs")
    rows, warps = cfg["rows"], cfg["warps"]
    if rows != _BUILT_ROWS:
        raise ValueError("int4_gemv.cu is built for %d rows per warp, not %r (docs/examples.md names the commit that "
                         "has the others)" % (_BUILT_ROWS, rows))
    y = torch.empty(n, device=x.device, dtype=torch.bfloat16)
    chunks = k // 32
    per_block = rows * warps
    _module().launch("int4_gemv_r%d" % rows, ((n + per_block - 1) // per_block,), (32 * warps,),
                     [x, w_nibbles, scales_zeros, y, n, k], shared_bytes=chunks * 64 + chunks * 4)
    return y.reshape(1, n)
