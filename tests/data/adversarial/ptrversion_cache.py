# SPDX-License-Identifier: Apache-2.0
# Attack 1: a cache keyed by storage pointer and version counter. Refills through in-place ops bump
# _version, so it recomputes on every refill and replays nothing inside the timed block. Expected:
# incorrect (the judged replay refills without moving the version counter).
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_cache = {}


def fn(x):
    key = (x.data_ptr(), x._version)
    if key not in _cache:
        _cache[key] = torch.nn.functional.gelu(x)
    return _cache[key]


if __name__ == "__main__":
    main(TARGET, fn)
