# SPDX-License-Identifier: Apache-2.0
# cuDNN through torch: conv2d in bf16 with cuDNN's autotuner on (torch.backends.cudnn.benchmark:
# the first call of a shape tries the algorithms). Against conv_baseline.py. Expected: faster.
from _hotkernel_contract import main
from conv_baseline import TARGET

import torch

torch.backends.cudnn.benchmark = True


def fn(x, w):
    return torch.nn.functional.conv2d(x, w, padding=1)


if __name__ == "__main__":
    main(TARGET, fn)
