# SPDX-License-Identifier: Apache-2.0
"""Candidate for target rmsnorm: same kernel with 16 warps per row (sweep: 35.7 vs 36.7 us by graph replay)"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from rmsnorm_baseline import TARGET

import tuned_kernels


def fn(x, w):
    return tuned_kernels.rmsnorm(x, w, eps=1e-6, num_warps=16)


if __name__ == "__main__":
    main(TARGET, fn)
