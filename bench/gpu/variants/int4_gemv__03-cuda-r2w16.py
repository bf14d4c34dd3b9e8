# SPDX-License-Identifier: Apache-2.0
"""Candidate for target int4_gemv: CUDA C++ int4 GEMV (examples/int4_gemv.cu): nibbles to fp16 pairs with one LOP3 each, x staged in shared memory in nibble order, fp16 products per 32-weight chunk then fp32; 2 rows per warp, 16 warps per block"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from int4_gemv_baseline import TARGET

import int4_gemv_cuda


def fn(x, w_int4pack, scales_zeros, w_nibbles):
    return int4_gemv_cuda.int4_gemv_cuda(x, w_nibbles, scales_zeros, 128, dict(rows=2, warps=16))


if __name__ == "__main__":
    main(TARGET, fn)
