# SPDX-License-Identifier: Apache-2.0
# A cache of compiled kernels warmed on the first call: one kernel compiled per (shape, dtype,
# device) the first time fn meets it (torch.compile with fixed shapes), reused by every later call.
# Expected: faster.
from _hotkernel_contract import main
from gelu_baseline import TARGET, gelu_tanh_fp32

import torch

_compiled = {}


def _gelu(x):
    return gelu_tanh_fp32(x.float()).to(x.dtype)


def fn(x):
    key = (tuple(x.shape), x.dtype, x.device)
    kernel = _compiled.get(key)
    if kernel is None:
        kernel = _compiled[key] = torch.compile(_gelu, dynamic=False, fullgraph=True)
        kernel(x)  # compiled and warmed here, on the first call of this shape
    return kernel(x)


if __name__ == "__main__":
    main(TARGET, fn)
