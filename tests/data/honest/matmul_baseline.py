# SPDX-License-Identifier: Apache-2.0
# Issue 42's honest corpus: a bf16 matrix product computed the slow way, in fp32 (TF32 off, as the
# contract sets it for a bf16 target), rounded to bf16. The cuBLAS candidate is measured against it.
from _hotkernel_contract import Input, Target, main

import torch

TARGET = Target("matmul", inputs=[Input("a", [4096, 2048]), Input("b", [2048, 4096])], dtype="bf16", iters=20,
                device="cuda")


def fn(a, b):
    return (a.float() @ b.float()).to(a.dtype)


if __name__ == "__main__":
    main(TARGET, fn)
