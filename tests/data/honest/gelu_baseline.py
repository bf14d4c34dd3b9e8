# SPDX-License-Identifier: Apache-2.0
# Issue 42's honest corpus: the baseline most candidates here are verified against. The tanh GELU of
# a transformer block written out as separate eager ops in fp32 (each a kernel streaming fp32
# temporaries through memory), rounded to bf16 at the end.
from _hotkernel_contract import Input, Target, main

import torch

TARGET = Target("gelu_tanh", inputs=[Input("x", [8192, 8192])], dtype="bf16", iters=20, device="cuda")


def gelu_tanh_fp32(xf):
    inner = 0.7978845608028654 * (xf + 0.044715 * xf * xf * xf)
    return 0.5 * xf * (1.0 + torch.tanh(inner))


def fn(x):
    return gelu_tanh_fp32(x.float()).to(x.dtype)


if __name__ == "__main__":
    main(TARGET, fn)
