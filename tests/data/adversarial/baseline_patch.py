# SPDX-License-Identifier: Apache-2.0
# Attack 5: the baseline module's fn (the default reference) is replaced so that zeros are
# "correct". Expected: incorrect (the reference comes from the baseline file loaded afresh).
from _hotkernel_contract import main
import gelu_baseline
from gelu_baseline import TARGET

import torch


def fn(x):
    return torch.zeros_like(x)


gelu_baseline.fn = fn

if __name__ == "__main__":
    main(TARGET, fn)
