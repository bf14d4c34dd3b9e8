# SPDX-License-Identifier: Apache-2.0
"""Candidate for target decode_attention: CUDA C++ split-KV decode (examples/decode_attention.cu, copy direct): two launches (see the combine); every lane loads 16-byte pieces of K and V straight into its mma fragments' registers (dims and keys permuted alike in Q, K, V, P and the output; V paired by byte permutes), no shared memory in the streaming loop; Q K^T and O^T = V^T P^T on tensor cores (mma.sync m16n8k16); 8 warps, 1 tile(s) of 16 keys and values in flight per warp beside the one in use, 4 chain(s) of mma per score fragment, 16 chunks per KV head (1 block(s) per SM), interleaved tiles (step j of all blocks of a KV head reads one contiguous window), a KV head's 16 blocks are one thread block cluster and send their partials into its first block's shared memory (st.async counted on an mbarrier), which combines them: no global memory, fence or ticket on the tail; the heads beyond the clusters that fit at once (7 clusters of 16 blocks on the H200) in a second kernel of 20 blocks per head on the SMs left over, a programmatic dependent launch that waits for the first before it exits, the last block to take a ticket combines; each cluster warp that has ended its stream has the L2 prefetch a 16 KiB piece of the last 4096 keys of every KV head (cp.async.bulk.prefetch, pieces in the order the warps reached their last tile), so that the warps still streaming find their last tiles in L2 (33.86 us in the sweep)"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from decode_attention_baseline import TARGET

import decode_attention_cuda


def fn(q, k, v):
    return decode_attention_cuda.decode_attention_cuda(q, k, v, dict(warps=8, chunks=16, order='interleaved', copy='direct', ahead=1, chains=4, blocks_per_sm=1, combine='cluster', secondary_chunks=20, tail_prefetch=True))


if __name__ == "__main__":
    main(TARGET, fn)
