# SPDX-License-Identifier: Apache-2.0
# torch.compile with its defaults: Inductor fuses the ops into one Triton kernel. It leaves its
# compile-worker pool and tqdm's monitor thread alive (issue 42's false alarm). Expected: faster.
from _hotkernel_contract import main
from gelu_baseline import TARGET, gelu_tanh_fp32

import torch


@torch.compile
def _fused(x):
    return gelu_tanh_fp32(x.float()).to(x.dtype)


def fn(x):
    return _fused(x)


if __name__ == "__main__":
    main(TARGET, fn)
