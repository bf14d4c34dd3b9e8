# SPDX-License-Identifier: Apache-2.0
# An honest candidate that cannot be captured in a CUDA graph: it waits for the device inside fn.
# Not a cheat: verify must time both sides with CUDA events (its `timers` field names the run from
# which it did) and give a measured verdict, not compare a graph timer with an events timer.
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _honest

import torch


def fn(x, w):
    torch.cuda.synchronize()  # not allowed while a stream is being captured
    return _honest(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
