# SPDX-License-Identifier: Apache-2.0
# torch.compile(mode="max-autotune"): Inductor benchmarks kernel configurations on the first call
# and wraps the result in CUDA graphs of its own (static outputs, as reduce-overhead). Expected:
# faster.
from _hotkernel_contract import main
from gelu_baseline import TARGET, gelu_tanh_fp32

import torch


@torch.compile(mode="max-autotune")
def _fused(x):
    return gelu_tanh_fp32(x.float()).to(x.dtype)


def fn(x):
    return _fused(x)


if __name__ == "__main__":
    main(TARGET, fn)
