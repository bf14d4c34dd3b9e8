# SPDX-License-Identifier: Apache-2.0
# Fixture source: a one-row-per-program Triton rmsnorm, run a few times so ncu and the
# Triton cache have a real kernel to show. Used only to capture tool output for tests/data.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_cols
    y = x * tl.rsqrt(ms + eps) * w
    tl.store(out_ptr + row * n_cols + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x, w, eps=1e-6):
    out = torch.empty_like(x)
    rows, cols = x.shape
    rmsnorm_kernel[(rows,)](x, w, out, cols, eps, BLOCK=triton.next_power_of_2(cols), num_warps=8)
    return out


if __name__ == "__main__":
    x = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        y = rmsnorm(x, w)
    torch.cuda.synchronize()
    ref = (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6) * w.float())
    print("max err", (y.float() - ref).abs().max().item())
