# SPDX-License-Identifier: Apache-2.0
# A Triton kernel with @triton.autotune: the first call of each key benchmarks the configurations
# (launching the kernel many times) and keeps the fastest. Expected: faster.
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (1024, 2048, 4096) for w in (4, 8)],
                 key=["n"])
@triton.jit
def _gelu_tanh(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    # tanh(u) = 2 * sigmoid(2u) - 1
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    tl.store(y_ptr + offs, (0.5 * x * (1.0 + t)).to(y_ptr.dtype.element_ty), mask=mask)


def fn(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    _gelu_tanh[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
    return y


if __name__ == "__main__":
    main(TARGET, fn)
