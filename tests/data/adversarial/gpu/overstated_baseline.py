# SPDX-License-Identifier: Apache-2.0
# Issue 25's floor on the card: the rmsnorm-sized target claims 64 times the bytes one call moves
# (min_bytes), so an honest kernel's real time is below what the card could do for the claimed
# work. Both sides of the verify break the floor; the verdict must be invalid with the floor's
# message, which tells the author to correct the definition.
from _hotkernel_contract import Input, Target, main

import torch

TARGET = Target("rmsnorm", inputs=[Input("x", [8192, 4096]), Input("w", [4096])], dtype="bf16", iters=50,
                rotate=["x"], device="cuda", min_bytes=64 * 8192 * 4096 * 2)


def fn(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w


if __name__ == "__main__":
    main(TARGET, fn)
