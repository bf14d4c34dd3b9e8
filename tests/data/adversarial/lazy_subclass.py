# SPDX-License-Identifier: Apache-2.0
# Issue 25: a tensor subclass whose work runs when the checker reads it, so the timed block does
# nothing. Expected: invalid (judged outputs must be plain torch.Tensor).
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch


class Lazy(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        args = [torch.nn.functional.gelu(a._src) if isinstance(a, Lazy) else a for a in args]
        with torch._C.DisableTorchFunction():
            return func(*args, **(kwargs or {}))


def fn(x):
    out = torch.Tensor._make_subclass(Lazy, torch.empty_like(x))
    out._src = x
    return out


if __name__ == "__main__":
    main(TARGET, fn)
