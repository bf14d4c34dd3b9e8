# SPDX-License-Identifier: Apache-2.0
# The honest rmsnorm-sized GPU baseline of the adversarial table (bench/adversarial_table.py).
from _hotkernel_contract import Input, Target, main

import torch

TARGET = Target("rmsnorm", inputs=[Input("x", [8192, 4096]), Input("w", [4096])], dtype="bf16", iters=50,
                rotate=["x"], device="cuda")


def fn(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w


if __name__ == "__main__":
    main(TARGET, fn)
