# SPDX-License-Identifier: Apache-2.0
"""Candidate for target decode_attention: CUDA C++ split-KV decode (examples/decode_attention.cu): one launch, the last block of a KV head combines its chunks; per-warp cp.async pipelines of 16-key K and V tiles; Q K^T and P V on tensor cores (mma.sync m16n8k16, the 4 query heads as rows, scores kept in registers as P's fragment); 8 warps x 2 stages, 16 chunks per KV head (39.45 us in the sweep)"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from decode_attention_baseline import TARGET

import decode_attention_cuda


def fn(q, k, v):
    return decode_attention_cuda.decode_attention_cuda(q, k, v, dict(warps=8, stages=2, chunks=16))


if __name__ == "__main__":
    main(TARGET, fn)
