# SPDX-License-Identifier: Apache-2.0
"""Candidate for target decode_attention: Triton split-KV decode: 32 splits per KV head, 64 keys per step, the 4 query heads of a GQA group in one 16-row tl.dot, online softmax, then a combine kernel"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from decode_attention_baseline import TARGET

import tuned_kernels


def fn(q, k, v):
    return tuned_kernels.decode_attention(q, k, v, dict(n_splits=32, BLOCK_N=64, num_warps=8, num_stages=3))


if __name__ == "__main__":
    main(TARGET, fn)
