# SPDX-License-Identifier: Apache-2.0
"""The decode attention of decode_attention.cu (CUDA C++), for candidates of the decode_attention target.

One call is two launches: the cluster kernel takes the KV heads whose 16-block clusters fit on the
GPU at once (7 of 8 on the H200), and the secondary, a programmatic dependent launch, takes the heads
left over on the SMs the clusters leave. decode_attention.cu explains the design; docs/examples.md
lists the configurations that lost and the commit where each can still be checked out.
"""
import math
import os

import torch

import cuda_launch

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "decode_attention.cu")

# The one configuration the kernels are built for: 8 warps per block, one tile of 16 keys in flight
# per warp beside the one in use, 4 score chains, one block per SM, 16 blocks (one cluster) per KV
# head in the interleaved key order, the direct copy, the cluster combine with the tail prefetch,
# and 20 blocks for each head of the secondary.
DECODE_CUDA_CONFIG = dict(warps=8, chunks=16, order="interleaved", copy="direct", ahead=1, chains=4, blocks_per_sm=1,
                          combine="cluster", secondary_chunks=20, tail_prefetch=True)
_CLUSTER_KERNEL = "decode_attention_direct_cluster16_tail_w8_a1_c4_b1"
_SECONDARY_KERNEL = "decode_attention_direct_secondary16_w8_a1_c4_b1"
_WARPS, _CHUNKS, _SECONDARY_CHUNKS = 8, 16, 20
# decode_attention.cu's kOrderInterleaved and kCombineTicketRelease; the cluster kernel is passed 4
# ("cluster"), which it reads only as "not tagged".
_ORDER_INTERLEAVED, _COMBINE_TICKET_RELEASE, _COMBINE_CLUSTER = 1, 3, 4
_WARP_RESULT_BYTES = 4 * 128 * 4 + 4 * 8  # decode_attention.cu: kWarpResultBytes
_MAX_KV_HEADS = 32

_modules = {}
_tickets = {}
_tails = {}
_clusters_fit = {}


def _module():
    device = torch.cuda.current_device()
    if device not in _modules:
        _modules[device] = cuda_launch.CudaModule(cuda_launch.compile_cubin(_SOURCE, device))
    return _modules[device]


def _ticket_counters(device, kv_heads):
    """Per-KV-head tickets that the secondary leaves at zero; one set per stream, so that calls on
    different streams never count each other's blocks."""
    key = (device, torch.cuda.current_stream(device).cuda_stream)
    if key not in _tickets or _tickets[key].numel() < kv_heads:
        _tickets[key] = torch.zeros(kv_heads, device=device, dtype=torch.int32)
    return _tickets[key]


def _tail_state(device, kv_heads):
    """The tail prefetch's counter and the number of KV heads, one pair per head count. The counter
    only grows and starts anywhere (a warp's rank is its value modulo the grid's warps), so calls on
    other streams only shuffle which piece a warp prefetches. Made by a fill kernel, not a copy from
    the host, so that it may be made during a CUDA graph capture."""
    key = (device, kv_heads)
    if key not in _tails:
        _tails[key] = torch.full((2,), kv_heads, device=device, dtype=torch.int32)
    return _tails[key]


def _checked_shapes(q, k, v):
    """(Hkv, S) of inputs the kernels handle; a ValueError that says what is wrong otherwise."""
    if q.dim() != 4 or k.dim() != 4 or q.shape[0] != 1 or q.shape[2] != 1 or k.shape != v.shape or k.shape[0] != 1:
        raise ValueError("shapes must be q [1, Hq, 1, D] and k, v [1, Hkv, S, D]; got q %s, k %s, v %s"
                         % (tuple(q.shape), tuple(k.shape), tuple(v.shape)))
    _, hq, _, dim = q.shape
    _, hkv, seq, _ = k.shape
    if hkv > _MAX_KV_HEADS:
        raise ValueError("decode_attention_cuda handles at most %d KV heads (got %d)" % (_MAX_KV_HEADS, hkv))
    if dim != 128 or k.shape[3] != 128 or hq != 4 * hkv:
        raise ValueError("decode_attention_cuda handles head dim 128 and 4 query heads per KV head (got D %d, "
                         "Hq %d, Hkv %d)" % (dim, hq, hkv))
    if any(t.dtype != torch.bfloat16 for t in (q, k, v)) or not all(t.is_contiguous() for t in (q, k, v)):
        raise ValueError("decode_attention_cuda wants contiguous bf16 q, k and v")
    for name, blocks in (("chunks", _CHUNKS), ("secondary_chunks", _SECONDARY_CHUNKS)):
        if seq % 16 != 0 or seq // 16 < blocks * _WARPS:  # every warp gets at least one tile of 16 keys
            raise ValueError("S = %d must be a multiple of 16 and hold at least %s x warps = %d tiles of 16 keys"
                             % (seq, name, blocks * _WARPS))
    return hkv, seq


def _clusters_that_fit(hkv, shared_bytes):
    """How many clusters of the cluster kernel run at once (the driver's count for this GPU)."""
    key = torch.cuda.current_device()
    if key not in _clusters_fit:
        _clusters_fit[key] = _module().max_active_clusters(_CLUSTER_KERNEL, (_CHUNKS, hkv), (32 * _WARPS,),
                                                           shared_bytes, non_portable_cluster=True)
    if _clusters_fit[key] < 1:
        raise ValueError("this GPU cannot run a cluster of %d blocks of %d warps (decode_attention_cuda needs "
                         "thread block clusters: compute capability 9.0 or later)" % (_CHUNKS, _WARPS))
    return _clusters_fit[key]


def decode_attention_cuda(q, k, v, config=None):
    """q [1, Hq, 1, 128], k and v [1, Hkv, S, 128] bf16 with Hq = 4 Hkv -> [1, Hq, 1, 128], like SDPA with GQA.

    config, when given, must be DECODE_CUDA_CONFIG (the candidates spell it out)."""
    if config is not None and dict(config) != DECODE_CUDA_CONFIG:
        raise ValueError("decode_attention_cuda is built for %s only, not %s; the other configurations are in "
                         "git history (docs/examples.md names the commit)" % (DECODE_CUDA_CONFIG, dict(config)))
    hkv, seq = _checked_shapes(q, k, v)
    out = torch.empty_like(q)
    scale_log2 = 1.0 / math.sqrt(q.shape[3]) * 1.4426950408889634
    shared_bytes = (_WARPS + _CHUNKS - 1) * _WARP_RESULT_BYTES  # the warps' results, then the inbox
    in_clusters = min(hkv, _clusters_that_fit(hkv, shared_bytes))
    # The cluster kernel's partials never leave the cluster: q stands in for the ticket buffers.
    _module().launch(_CLUSTER_KERNEL, (_CHUNKS, in_clusters), (32 * _WARPS,),
                     [q, k, v, q, q, q, _tail_state(q.device, hkv), out, seq, scale_log2, _ORDER_INTERLEAVED,
                      _COMBINE_CLUSTER, 0],
                     shared_bytes=shared_bytes, non_portable_cluster=True)
    if in_clusters < hkv:  # the heads left over: the secondary, on the SMs the clusters leave
        first = 4 * in_clusters
        rest = hkv - in_clusters
        part_acc = torch.empty(rest * _SECONDARY_CHUNKS * 4 * 128, device=q.device, dtype=torch.float32)
        part_ml = torch.empty(rest * _SECONDARY_CHUNKS * 4 * 2, device=q.device, dtype=torch.float32)
        _module().launch(_SECONDARY_KERNEL, (_SECONDARY_CHUNKS, rest), (32 * _WARPS,),
                         [q[:, first:], k[:, in_clusters:], v[:, in_clusters:], part_acc, part_ml, part_acc,
                          _ticket_counters(q.device, rest), out[:, first:], seq, scale_log2, _ORDER_INTERLEAVED,
                          _COMBINE_TICKET_RELEASE, 0],
                         shared_bytes=_WARPS * _WARP_RESULT_BYTES, programmatic=True)
    return out
