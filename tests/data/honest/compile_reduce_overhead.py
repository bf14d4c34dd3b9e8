# SPDX-License-Identifier: Apache-2.0
# torch.compile(mode="reduce-overhead"): Inductor's kernel replayed from a CUDA graph of its own,
# which returns static buffers that its next call overwrites (docs/contract.md, "Output lifetime").
# Expected: faster.
from _hotkernel_contract import main
from gelu_baseline import TARGET, gelu_tanh_fp32

import torch


@torch.compile(mode="reduce-overhead")
def _fused(x):
    return gelu_tanh_fp32(x.float()).to(x.dtype)


def fn(x):
    return _fused(x)


if __name__ == "__main__":
    main(TARGET, fn)
