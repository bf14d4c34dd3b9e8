# SPDX-License-Identifier: Apache-2.0
# The honest baseline every CPU adversarial fixture here is verified against.
from _hotkernel_contract import Input, Target, main

import torch

TARGET = Target("gelu", inputs=[Input("x", [256, 512])], dtype="fp32", iters=10, device="cpu")


def fn(x):
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
