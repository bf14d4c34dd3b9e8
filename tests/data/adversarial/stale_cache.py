# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 8 on a CPU, against the guard value_cache.py meets. The inputs now change between
# timed replays, in place and reversibly, so this cache keeps the output it computed for the inputs
# it first saw in each buffer and tells a change of the contract's kind (every sampled value keeps
# its sign) from a refill (signs flip): on the first inputs again (the run's own, which the last
# replay restores and the timed check judges) it returns that output, correctly; on changed ones
# it returns it too, stale, skipping every call of every replay in between. Expected: incorrect
# (timed calls drawn after their replay ran are checked against references for the inputs they
# saw).
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_first = {}  # storage pointer -> (sampled values of the first inputs seen there, their output)


def _sample(x):
    flat = x.reshape(-1)
    return flat[:: max(1, flat.numel() // 64)].clone()


def fn(x):
    sample = _sample(x)
    hit = _first.get(x.data_ptr())
    if hit is not None and bool(((hit[0] > 0) == (sample > 0)).all()):
        return hit[1]
    out = torch.nn.functional.gelu(x)
    _first[x.data_ptr()] = (sample, out)
    return out


if __name__ == "__main__":
    main(TARGET, fn)
