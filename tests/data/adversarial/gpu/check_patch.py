# SPDX-License-Identifier: Apache-2.0
# Attack 4, thorough: makes the contract's comparison always pass and silences the integrity check
# through the module global the worker calls it by; fn returns garbage. The line says ok with no
# `invalid`. Expected: incorrect (the baseline worker compares the written outputs itself).
import _hotkernel_contract
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET

import torch


def _always_ok(self, out, k, where=""):
    return True, 0.0, None


_hotkernel_contract._Bench.check = _always_ok
_hotkernel_contract._ORIGINAL_VIOLATIONS = lambda: []


def fn(x, w):
    return torch.full_like(x, 3.0)


if __name__ == "__main__":
    main(TARGET, fn)
