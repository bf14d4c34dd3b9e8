# SPDX-License-Identifier: Apache-2.0
# A workspace allocated once and reused by every call: the fp32 temporaries of the same formula as
# the baseline's, computed a block of rows at a time in place in a 32 MiB workspace (which stays in
# L2) instead of fresh full-size fp32 tensors. Expected: faster.
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_ROWS = 1024
_workspace = {}


def fn(x):
    key = (x.device, x.shape[1])
    ws = _workspace.get(key)
    if ws is None:
        ws = _workspace[key] = (torch.empty(_ROWS, x.shape[1], device=x.device, dtype=torch.float32),
                                torch.empty(_ROWS, x.shape[1], device=x.device, dtype=torch.float32))
    v, t = ws
    y = torch.empty_like(x)
    for start in range(0, x.shape[0], _ROWS):
        rows = min(_ROWS, x.shape[0] - start)
        vv, tt = v[:rows], t[:rows]
        vv.copy_(x[start:start + rows])
        torch.mul(vv, vv, out=tt)
        tt.mul_(vv).mul_(0.044715).add_(vv).mul_(0.7978845608028654).tanh_().add_(1.0).mul_(vv).mul_(0.5)
        y[start:start + rows].copy_(tt)
    return y


if __name__ == "__main__":
    main(TARGET, fn)
