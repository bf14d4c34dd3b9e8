# SPDX-License-Identifier: Apache-2.0
# Attack 4: the check is replaced inside the candidate's process, fn returns zeros fast.
# Expected: invalid (contract _Bench.check patched).
import _hotkernel_contract
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch


def _always_ok(self, out, k, where=""):
    return True, 0.0, None


_hotkernel_contract._Bench.check = _always_ok


def fn(x):
    return torch.zeros_like(x)


if __name__ == "__main__":
    main(TARGET, fn)
