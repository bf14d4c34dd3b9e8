# SPDX-License-Identifier: Apache-2.0
# Work forked onto a side stream that never joins the calling stream. Expected: invalid.
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _honest

import torch

_side = None


def fn(x, w):
    global _side
    if _side is None:
        _side = torch.cuda.Stream()
    _side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(_side):
        return _honest(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
