# SPDX-License-Identifier: Apache-2.0
"""Library path for target int4_gemv (baseline choice): dequantise the nibbles with torch ops, then cuBLAS GEMV"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from int4_gemv_baseline import TARGET

import torch


def fn(x, w_int4pack, scales_zeros, w_nibbles):
    n, half_k = w_nibbles.shape
    k = 2 * half_k
    q = torch.stack([w_nibbles >> 4, w_nibbles & 15], dim=-1).reshape(n, k // 128, 128).to(x.dtype)
    scale = scales_zeros[..., 0].t().unsqueeze(-1)
    zero = scales_zeros[..., 1].t().unsqueeze(-1)
    w = ((q - 8) * scale + zero).reshape(n, k)
    return torch.nn.functional.linear(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
