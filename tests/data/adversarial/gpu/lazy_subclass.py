# SPDX-License-Identifier: Apache-2.0
# Issue 25: a tensor subclass that computes when the checker first reads it. Expected: invalid.
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _honest

import torch


class Lazy(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        args = [_honest(*a._src) if isinstance(a, Lazy) else a for a in args]
        with torch._C.DisableTorchFunction():
            return func(*args, **(kwargs or {}))


def fn(x, w):
    out = torch.Tensor._make_subclass(Lazy, torch.empty_like(x))
    out._src = (x, w)
    return out


if __name__ == "__main__":
    main(TARGET, fn)
