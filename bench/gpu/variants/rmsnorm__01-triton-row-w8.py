# SPDX-License-Identifier: Apache-2.0
"""Candidate for target rmsnorm: one Triton program per row, the row in registers (fp32), one read and one write; 8 warps"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from rmsnorm_baseline import TARGET

import tuned_kernels


def fn(x, w):
    return tuned_kernels.rmsnorm(x, w, eps=1e-6, num_warps=8)


if __name__ == "__main__":
    main(TARGET, fn)
