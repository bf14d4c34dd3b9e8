# SPDX-License-Identifier: Apache-2.0
# Issue 42's honest corpus: a 3x3 convolution (padding 1) written as im2col (unfold) and a matrix
# product in fp32, rounded to bf16. The cuDNN candidate is measured against it.
from _hotkernel_contract import Input, Target, main

import torch

TARGET = Target("conv3x3", inputs=[Input("x", [32, 64, 56, 56]), Input("w", [64, 64, 3, 3])], dtype="bf16",
                iters=20, device="cuda")


def fn(x, w):
    n, c, h, wd = x.shape
    cols = torch.nn.functional.unfold(x.float(), kernel_size=3, padding=1)  # [n, c*9, h*wd]
    out = w.float().reshape(w.shape[0], -1) @ cols  # [n, k, h*wd]
    return out.reshape(n, w.shape[0], h, wd).to(x.dtype)


if __name__ == "__main__":
    main(TARGET, fn)
