# SPDX-License-Identifier: Apache-2.0
# cuBLAS through torch: a bf16 GEMM (torch.mm) on the tensor cores,
# fp32 accumulation. Against matmul_baseline.py. Expected: faster.
from _hotkernel_contract import main
from matmul_baseline import TARGET

import torch


def fn(a, b):
    return torch.mm(a, b)


if __name__ == "__main__":
    main(TARGET, fn)
