# SPDX-License-Identifier: Apache-2.0
# Attack 3 on the GPU: torch.cuda.Event.elapsed_time reports a thousandth. Expected: invalid.
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn

import torch

_real = torch.cuda.Event.elapsed_time


def _fast(self, end):
    return _real(self, end) / 1000.0


torch.cuda.Event.elapsed_time = _fast

if __name__ == "__main__":
    main(TARGET, fn)
