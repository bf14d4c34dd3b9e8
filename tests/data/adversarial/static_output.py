# SPDX-License-Identifier: Apache-2.0
# Honest: every call writes its output into one buffer allocated once and returns it, so each call
# overwrites what the previous one returned (torch.compile's mode="reduce-overhead" returns CUDA
# graph buffers the same way). The contract judges each output before fn is called again
# (docs/contract.md, "Output lifetime"), so the verdict must be a real one (issue 42).
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_buffers = {}


def fn(x):
    out = _buffers.get((x.shape, x.dtype))
    if out is None:
        out = _buffers[(x.shape, x.dtype)] = torch.empty_like(x)
    torch.ops.aten.gelu.out(x, out=out)
    return out


if __name__ == "__main__":
    main(TARGET, fn)
