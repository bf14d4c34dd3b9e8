# SPDX-License-Identifier: Apache-2.0
# Issue 41's GPU control: an honest Triton rmsnorm that compiles at its first call, so Triton
# writes its cache (TRITON_CACHE_DIR, in the worker's scratch) while the worker is confined.
# Expected: a measured verdict (faster, slower or inconclusive), the candidate confined.
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET

import torch
import triton
import triton.language as tl


@triton.jit
def _rmsnorm(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    rms = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    y = (x * rms).to(tl.bfloat16) * w
    tl.store(y_ptr + row * n_cols + cols, y, mask=mask)


def fn(x, w):
    y = torch.empty_like(x)
    rows, cols = x.shape
    _rmsnorm[(rows,)](x, w, y, cols, 1e-6, BLOCK=triton.next_power_of_2(cols))
    return y


if __name__ == "__main__":
    main(TARGET, fn)
