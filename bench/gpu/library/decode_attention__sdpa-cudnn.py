# SPDX-License-Identifier: Apache-2.0
"""Library path for target decode_attention (baseline choice): PyTorch SDPA forced to its cudnn backend"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from decode_attention_baseline import TARGET

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel


def fn(q, k, v):
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)


if __name__ == "__main__":
    main(TARGET, fn)
