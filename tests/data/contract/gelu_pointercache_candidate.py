# SPDX-License-Identifier: Apache-2.0
# A cheating candidate: caches its output by the input's data pointer. Run 0 passes; run 1 of a worker
# refills the same storage with new data, so the cached outputs no longer match.
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_cache = {}


def fn(x):
    key = x.data_ptr()
    if key not in _cache:
        _cache[key] = torch.nn.functional.gelu(x)
    return _cache[key]


if __name__ == "__main__":
    main(TARGET, fn)
