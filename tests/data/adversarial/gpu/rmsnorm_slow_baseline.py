# SPDX-License-Identifier: Apache-2.0
# The baseline of issue 41's class 8 fixtures (skip_unchanged.py, skip_repeated.py) and of their
# honest control (slow_honest.py): a Triton rmsnorm far from its physical floor, as issue 41's
# Triton target was, so that skipping a fifth of the rows cannot be caught by the floor instead.
# Each row's normalised values go through ROUNDS steps of z = z/2 + v/2 before the weight: with
# z = v that is v again, bit for bit (halving is exact, and so is the sum of two equal halves),
# so the output is the plain rmsnorm (the same as rmsnorm_baseline.py's up to rounding), but the
# compiler cannot drop the steps (no fast math) and each costs every element of the row.
from _hotkernel_contract import Input, Target, main

import torch
import triton
import triton.language as tl

TARGET = Target("rmsnorm", inputs=[Input("x", [8192, 4096]), Input("w", [4096])], dtype="bf16", iters=50,
                rotate=["x"], device="cuda")
ROUNDS = 128


# One row of the slow rmsnorm, shared with the class 8 candidates, so that both sides do the same
# work for each row they compute.
@triton.jit
def rmsnorm_row(x_ptr, w_ptr, y_ptr, row, n_cols, eps, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    v = x * tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    z = v
    for _ in range(ROUNDS):
        z = z * 0.5 + v * 0.5
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, z.to(tl.bfloat16) * w, mask=mask)


@triton.jit
def _rmsnorm(x_ptr, w_ptr, y_ptr, n_cols, eps, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    rmsnorm_row(x_ptr, w_ptr, y_ptr, tl.program_id(0), n_cols, eps, ROUNDS, BLOCK)


def fn(x, w):
    y = torch.empty_like(x)
    rows, cols = x.shape
    _rmsnorm[(rows,)](x, w, y, cols, 1e-6, ROUNDS=ROUNDS, BLOCK=triton.next_power_of_2(cols))
    return y


if __name__ == "__main__":
    main(TARGET, fn)
