# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 8 on a CPU, against the input changes themselves: torch.Tensor.bitwise_xor_ (how
# the contract changes a floating input between timed blocks) made a no-op, so every block sees
# the same inputs again and the value cache of value_cache.py hits on every call, correctly.
# Expected: invalid (the integrity snapshot covers the tensor methods the changes use).
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

torch.Tensor.bitwise_xor_ = lambda self, other: self

_cache = {}  # storage pointer -> (probe, output)


def _probe(x):
    flat = x.reshape(-1)
    return float(flat[:: max(1, flat.numel() // 64)].sum())


def fn(x):
    probe = _probe(x)
    hit = _cache.get(x.data_ptr())
    if hit is not None and hit[0] == probe:
        return hit[1]
    out = torch.nn.functional.gelu(x)
    _cache[x.data_ptr()] = (probe, out)
    return out


if __name__ == "__main__":
    main(TARGET, fn)
