# SPDX-License-Identifier: Apache-2.0
# A wrong candidate: a cheap approximation that is off by far more than the fp32 tolerance.
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch


def fn(x):
    return torch.relu(x)


if __name__ == "__main__":
    main(TARGET, fn)
