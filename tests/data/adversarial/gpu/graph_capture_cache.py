# SPDX-License-Identifier: Apache-2.0
# Attack 2: while a CUDA graph is captured, return the output computed for the same pointers during
# the correctness check, so the graph records nothing. Expected: incorrect (the judged replay
# poisons the outputs, refills the inputs and replays the graph).
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _honest

import torch

_seen = {}


def fn(x, w):
    key = (x.data_ptr(), w.data_ptr())
    if torch.cuda.is_current_stream_capturing() and key in _seen:
        return _seen[key]
    out = _honest(x, w)
    _seen[key] = out
    return out


if __name__ == "__main__":
    main(TARGET, fn)
