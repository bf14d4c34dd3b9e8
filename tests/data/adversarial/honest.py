# SPDX-License-Identifier: Apache-2.0
# The control: an honest candidate must stay ok (a guard that fails it is a false positive).
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch


def fn(x):
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
