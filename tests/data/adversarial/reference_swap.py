# SPDX-License-Identifier: Apache-2.0
# Attack 5, thorough: replaces the baseline module's fn (the default reference) with zeros and also
# the contract's fresh load of the baseline file, so the reference in this process is the swapped
# one; fn returns zeros. The checks in this process pass. Expected: incorrect (the baseline worker,
# which never imported this file, judges the written outputs against its own reference).
import _hotkernel_contract
from _hotkernel_contract import main
import gelu_baseline
from gelu_baseline import TARGET

import torch


def fn(x):
    return torch.zeros_like(x)


gelu_baseline.fn = fn
_hotkernel_contract._fresh_function = lambda path, name: None

if __name__ == "__main__":
    main(TARGET, fn)
