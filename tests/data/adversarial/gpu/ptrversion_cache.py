# SPDX-License-Identifier: Apache-2.0
# Attack 1 on the GPU: a cache keyed by pointer and version counter. Expected: incorrect.
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _honest

_cache = {}


def fn(x, w):
    key = (x.data_ptr(), x._version, w.data_ptr(), w._version)
    if key not in _cache:
        _cache[key] = _honest(x, w)
    return _cache[key]


if __name__ == "__main__":
    main(TARGET, fn)
