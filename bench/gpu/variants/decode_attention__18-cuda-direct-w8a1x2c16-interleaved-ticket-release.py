# SPDX-License-Identifier: Apache-2.0
"""Candidate for target decode_attention: CUDA C++ split-KV decode (examples/decode_attention.cu, copy direct): one launch; every lane loads 16-byte pieces of K and V straight into its mma fragments' registers (dims and keys permuted alike in Q, K, V, P and the output; V paired by byte permutes), no shared memory in the streaming loop; Q K^T and O^T = V^T P^T on tensor cores (mma.sync m16n8k16); 8 warps, 1 tile(s) of 16 keys and values in flight per warp beside the one in use, 2 chain(s) of mma per score fragment, 16 chunks per KV head (1 block(s) per SM), interleaved tiles (step j of all blocks of a KV head reads one contiguous window), the last block to take a ticket (one acq_rel atomic per block) combines (35.45 us in the sweep)"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from decode_attention_baseline import TARGET

import decode_attention_cuda


def fn(q, k, v):
    return decode_attention_cuda.decode_attention_cuda(q, k, v, dict(warps=8, chunks=16, order='interleaved', copy='direct', ahead=1, chains=2, blocks_per_sm=1, combine='ticket-release'))


if __name__ == "__main__":
    main(TARGET, fn)
