# SPDX-License-Identifier: Apache-2.0
"""Candidate for target decode_attention: Triton split-KV + combine kernel; 16 splits, 128 keys per step, 4 warps, 3 stages, interleaved tiles (step j of all blocks of a KV head reads one contiguous window), KV head h starting h/8 of the way along its keys (35.86 us in the sweep)"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from decode_attention_baseline import TARGET

import tuned_kernels


def fn(q, k, v):
    return tuned_kernels.decode_attention(q, k, v, dict(n_splits=16, BLOCK_N=128, num_warps=4, num_stages=3, interleaved=True, stagger=True))


if __name__ == "__main__":
    main(TARGET, fn)
