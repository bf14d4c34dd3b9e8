# SPDX-License-Identifier: Apache-2.0
"""Triton kernels for the rmsnorm, softmax and gemv example targets (their candidates import these).

Each was written for the H200 by running the kernel-speedrun loop; docs/examples.md and the
recorded notes under results/ say what each change did. Shapes are the examples' shapes, but the
kernels take any size that the asserts allow.
"""
import torch
import triton
import triton.language as tl


# --- rmsnorm: one program per row, the row held in registers, one read and one write -----------
@triton.jit
def _rmsnorm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * n_cols + cols, (x * inv * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x, w, eps=1e-6, num_warps=16):
    assert x.is_contiguous() and x.dim() == 2 and w.numel() == x.shape[1]
    y = torch.empty_like(x)
    _rmsnorm_kernel[(x.shape[0],)](x, w, y, x.shape[1], eps, BLOCK=triton.next_power_of_2(x.shape[1]),
                                   num_warps=num_warps)
    return y


# --- softmax over the last dim: one program per row, max, exp and sum in registers --------------
@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"), eviction_policy="evict_first").to(tl.float32)
    e = tl.exp2((x - tl.max(x, axis=0)) * 1.4426950408889634)
    tl.store(y_ptr + row * n_cols + cols, (e / tl.sum(e, axis=0)).to(y_ptr.dtype.element_ty), mask=mask)


def softmax(x, num_warps=16):
    assert x.is_contiguous() and x.dim() == 2
    y = torch.empty_like(x)
    _softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]), num_warps=num_warps)
    return y


# --- gemv y = W x: a block of rows per program, fp32 accumulation ------------------------------
@triton.jit
def _gemv_kernel(w_ptr, x_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    row_base = rows.to(tl.int64)[:, None] * n_cols
    for k in range(0, n_cols, BLOCK_K):
        cols = k + tl.arange(0, BLOCK_K)
        w = tl.load(w_ptr + row_base + cols[None, :], eviction_policy="evict_first")
        xv = tl.load(x_ptr + cols, eviction_policy="evict_last")
        acc += w.to(tl.float32) * xv.to(tl.float32)[None, :]
    tl.store(y_ptr + rows, tl.sum(acc, axis=1).to(y_ptr.dtype.element_ty))


GEMV_CONFIG = dict(BLOCK_M=1, BLOCK_K=1024, num_warps=4, num_stages=4)


def gemv(w, x, config=None):
    cfg = dict(GEMV_CONFIG if config is None else config)
    n_rows, n_cols = w.shape
    assert w.is_contiguous() and n_rows % cfg["BLOCK_M"] == 0 and n_cols % cfg["BLOCK_K"] == 0
    y = torch.empty(n_rows, device=w.device, dtype=w.dtype)
    _gemv_kernel[(n_rows // cfg["BLOCK_M"],)](w, x, y, n_rows, n_cols, BLOCK_M=cfg["BLOCK_M"], BLOCK_K=cfg["BLOCK_K"],
                                             num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
    return y
