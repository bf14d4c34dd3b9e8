# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 8 on a CPU: work skipped while the inputs are unchanged. A cache keyed by the
# input's storage and a cheap probe of its values (64 sampled elements): a call on a set it has
# seen, unchanged, returns that set's output without computing. Refills change the probe, so the
# judged replay computes everything and is correct; the timed replays reuse the sets unchanged.
# Protocol 5 at 381655d: faster, 14.6x at n=5 on the 2-core machine (a CPU block reused its sets
# unchanged). Expected: not faster than its honest equal (the sets change between timed blocks, one
# set per call, so every timed call computes).
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

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
