# SPDX-License-Identifier: Apache-2.0
"""Candidate for target int4_gemv: Triton GEMV on the plain nibbles read as 32-bit words, nibble-to-float by the 2^23 trick, per-group scale and zero applied after the group sum; 16 rows x 8 groups per step"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from int4_gemv_baseline import TARGET

import tuned_kernels


def fn(x, w_int4pack, scales_zeros, w_nibbles):
    return tuned_kernels.int4_gemv_words(x, w_nibbles, scales_zeros, 128, dict(BLOCK_N=16, GROUPS=8, num_warps=4, num_stages=2))


if __name__ == "__main__":
    main(TARGET, fn)
