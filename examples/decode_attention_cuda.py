# SPDX-License-Identifier: Apache-2.0
"""The decode attention of decode_attention.cu (CUDA C++), for candidates of the decode_attention target."""
import math
import os

import torch

import cuda_launch

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "decode_attention.cu")
_STAGE_BYTES = 2 * 16 * (256 + 16)  # one pipeline stage of a warp: 16 keys of K and of V, padded rows
_BUILT = {(1, 3), (1, 4), (2, 3), (2, 4), (2, 6), (4, 2), (4, 3), (4, 4), (4, 6), (8, 2), (8, 3)}  # (warps, stages)
_modules = {}
_tickets = {}
_tails = {}

# Warps per block, pipeline stages per warp, chunks (blocks) per KV head, and the order in which a
# block's warps walk the keys: "chunk" (each block one run of consecutive keys; the default, as
# first recorded), "interleaved" (step j of every block of a KV head reads one contiguous window) or
# "staggered" (interleaved, with KV head h starting h/Hkv of the way along its keys).
# How tiles reach shared memory: "thread" (cp.async, 16 bytes per thread; the default, as first
# recorded), "thread-prefetch" (the same with a 256-byte L2 prefetch) or "bulk" (cp.async.bulk, the
# TMA engine, one row per lane); or "direct": not at all, straight into registers (below). Chosen by
# the H200 sweeps in bench/gpu/.
# How the chunks of a KV head are combined: "ticket" (the last block to take a ticket reads every
# chunk's partial; the default, as first recorded), "ticket-release" (the same with one acq_rel
# atomic per block instead of a fence per thread), "tagged" (every published value carries the
# call's epoch, and the head's last block polls for them: no fence and no counter on the tail) or
# "cluster" (copy "direct" and 16 chunks only: a KV head's blocks are one thread block cluster and
# send their partials to its first block's shared memory; no global memory on the tail. The heads
# beyond the clusters that fit at once go to a second kernel of `secondary_chunks` blocks per head,
# default `chunks`, interleaved, with "ticket-release", launched as a programmatic dependent of the
# first). With the cluster combine, `deal` says how a KV head's tiles reach its warps: "static" (each
# warp's tiles fixed in advance by the order; the default) or "dynamic" (interleaved only: each warp's
# first 8 tiles fixed, the rest dealt one at a time from a counter in the cluster's first block, so
# that the head's warps end together; the result then varies within rounding from call to call).
# tail_prefetch=True (cluster combine, static deal): each cluster warp that ends its stream has the L2
# prefetch a piece of the last 4096 keys of every KV head, for the warps still streaming (kept: 33.73-
# 33.94 us against 34.10-34.68 without, bench/gpu/results/decode_direct_sweep-2026-12-03-1431.txt).
DECODE_CUDA_CONFIG = dict(warps=8, stages=2, chunks=16, order="interleaved", copy="thread")
_ORDERS = {"chunk": 0, "interleaved": 1, "staggered": 2}
_COPIES = {"thread": "decode_attention", "thread-prefetch": "decode_attention_prefetch", "bulk": "decode_attention_bulk",
           "direct": "decode_attention_direct"}
_COMBINES = {"ticket": 0, "tagged": 1, "ticket-release": 3, "cluster": 4}  # the kernels do not read 4: _cluster entries
_TAGGED_ROW, _EPOCH_WORDS = 130, 32  # decode_attention.cu: kTaggedRow, kEpochWords
_tagged = {}
# Layout "even" (decode_attention_even_*): one block per SM, or blocks_per_sm, all KV heads' keys cut
# into equal runs, the tagged combine; warps, stages and blocks_per_sm are its parameters.
_EVEN_BUILT = {(8, 2), (8, 3), (4, 3), (4, 4)}  # (warps, stages)
_WARP_RESULT_BYTES = 4 * 128 * 4 + 4 * 8  # decode_attention.cu: kWarpResultBytes
# Copy "direct" (decode_attention_direct_*): tiles loaded straight into the mma fragments' registers,
# no shared memory in the loop; `stages` does not apply. Its parameters: warps, ahead (tiles of keys
# and values in flight per warp beside the one in use), chains (independent accumulations of each score fragment, to shorten the chain of dependent mma
# between a tile's arrival and its P V) and blocks_per_sm (the register cap the kernel was built
# with, so that this many blocks fit on an SM).
# The H200 sweeps (bench/gpu/results/decode_direct_sweep-2026-12-03-*.txt) dropped the other builds:
# no tile ahead (12 to 16 warps per SM, 128-168 registers) streamed at 35.4-38.9 us, a 256-byte L2
# prefetch on every load at 34.1-34.4, two key tiles ahead (Q's fragment in shared memory to make
# room) at 35.3-38.5, against 33.2-33.8 us for these.
_DIRECT_BUILT = {(8, 1, 1, 1), (4, 1, 1, 2), (2, 1, 1, 4), (8, 1, 2, 1), (4, 1, 2, 2),
                 (8, 1, 4, 1)}  # (warps, ahead, chains, blocks_per_sm)
_CLUSTER_BUILT = {(8, 1, 2, 1), (8, 1, 4, 1)}  # the same, for combine "cluster"
_CLUSTER_CHUNKS = 16  # decode_attention.cu: the _cluster16 entries
_clusters_fit = {}


def _module():
    device = torch.cuda.current_device()
    if device not in _modules:
        _modules[device] = cuda_launch.CudaModule(cuda_launch.compile_cubin(_SOURCE, device))
    return _modules[device]


def _ticket_counters(device, kv_heads):
    """Per-KV-head tickets that the kernel leaves at zero; one set per stream, so that calls on
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


def _tagged_partials(device, rows):
    """The tagged combine's epochs and `rows` partial rows, which live across calls: one set per
    stream and size. Epochs and values are one allocation, so that nothing can reset one without
    the other."""
    key = (device, torch.cuda.current_stream(device).cuda_stream, rows)
    if key not in _tagged:
        _tagged[key] = torch.zeros(_EPOCH_WORDS + rows * _TAGGED_ROW, device=device, dtype=torch.int64)
    return _tagged[key]


def _checked_shapes(q, k, v):
    """(Hq, Hkv, S, D) of inputs the kernels handle; a ValueError that says what is wrong otherwise."""
    if q.dim() != 4 or k.dim() != 4 or q.shape[0] != 1 or q.shape[2] != 1 or k.shape != v.shape or k.shape[0] != 1:
        raise ValueError("shapes must be q [1, Hq, 1, D] and k, v [1, Hkv, S, D]; got q %s, k %s, v %s"
                         % (tuple(q.shape), tuple(k.shape), tuple(v.shape)))
    _, hq, _, dim = q.shape
    _, hkv, seq, _ = k.shape
    if hkv > _EPOCH_WORDS:
        raise ValueError("decode_attention_cuda handles at most %d KV heads (got %d)" % (_EPOCH_WORDS, hkv))
    if dim != 128 or k.shape[3] != 128 or hq != 4 * hkv:
        raise ValueError("decode_attention_cuda handles head dim 128 and 4 query heads per KV head (got D %d, "
                         "Hq %d, Hkv %d)" % (dim, hq, hkv))
    if any(t.dtype != torch.bfloat16 for t in (q, k, v)) or not all(t.is_contiguous() for t in (q, k, v)):
        raise ValueError("decode_attention_cuda wants contiguous bf16 q, k and v")
    return hq, hkv, seq, dim


def _decode_attention_even(q, k, v, cfg, stop_after):
    warps, stages = cfg["warps"], cfg["stages"]
    if (warps, stages) not in _EVEN_BUILT:
        raise ValueError("the even layout has no kernel for %d warps x %d stages (built: %s)"
                         % (warps, stages, sorted(_EVEN_BUILT)))
    if stop_after not in (0, 2):
        raise ValueError("the even layout measures only _stop_after 2 (the streaming loop), not %r" % stop_after)
    _, hkv, seq, dim = _checked_shapes(q, k, v)
    blocks = torch.cuda.get_device_properties(q.device).multi_processor_count * cfg.get("blocks_per_sm", 1)
    if seq % 16 != 0 or not hkv <= blocks <= hkv * seq // 16:
        raise ValueError("the even layout needs S a multiple of 16 and Hkv <= blocks <= Hkv x S / 16 "
                         "(S %d, Hkv %d, blocks %d)" % (seq, hkv, blocks))
    out = torch.empty_like(q)
    _module().launch("decode_attention_even_w%d_s%d" % (warps, stages), (blocks,), (32 * warps,),
                     [q, k, v, _tagged_partials(q.device, blocks * 2 * 4), out, seq, hkv,
                      1.0 / math.sqrt(dim) * 1.4426950408889634, int(stop_after)],
                     shared_bytes=warps * (stages * _STAGE_BYTES + _WARP_RESULT_BYTES))
    return out


def decode_attention_cuda(q, k, v, config=None, _stop_after=0):
    """q [1, Hq, 1, 128], k and v [1, Hkv, S, 128] bf16 with Hq = 4 Hkv -> [1, Hq, 1, 128], like SDPA with GQA.

    _stop_after is for measuring the kernel's phases only (1: skip the final combine, 2: stop after
    the streaming loop, 3: the streaming loop's copies alone, no arithmetic); the output is then garbage."""
    cfg = dict(DECODE_CUDA_CONFIG if config is None else config)
    layout = cfg.get("layout", "per-head")
    if layout == "even":
        return _decode_attention_even(q, k, v, cfg, _stop_after)
    if layout != "per-head":
        raise ValueError("layout must be 'per-head' or 'even', not %r" % (layout,))
    warps, chunks, order = cfg["warps"], cfg["chunks"], cfg.get("order", "chunk")
    copy = cfg.get("copy", "thread")
    if order not in _ORDERS:
        raise ValueError("order must be one of %s, not %r" % (sorted(_ORDERS), order))
    if copy not in _COPIES:
        raise ValueError("copy must be one of %s, not %r" % (sorted(_COPIES), copy))
    combine = cfg.get("combine", "ticket")
    if combine not in _COMBINES:
        raise ValueError("combine must be one of %s, not %r" % (sorted(_COMBINES), combine))
    cluster = combine == "cluster"
    deal, tail = cfg.get("deal", "static"), bool(cfg.get("tail_prefetch", False))
    if deal not in ("static", "dynamic"):
        raise ValueError("deal must be 'static' or 'dynamic', not %r" % (deal,))
    if deal == "dynamic" and not (cluster and order == "interleaved"):
        raise ValueError("deal 'dynamic' needs combine 'cluster' and order 'interleaved' (got %r, %r)"
                         % (combine, order))
    if deal == "dynamic" and _stop_after not in (0, 1):  # its blocks deal tiles until the combine
        raise ValueError("deal 'dynamic' measures only _stop_after 1 (no final combine), not %r" % _stop_after)
    if tail and not (cluster and deal == "static"):
        raise ValueError("tail_prefetch needs combine 'cluster' and deal 'static'")
    if copy == "direct":
        built = (warps, cfg.get("ahead", 1), cfg.get("chains", 1), cfg.get("blocks_per_sm", 1))
        kernels = _CLUSTER_BUILT if cluster else _DIRECT_BUILT
        if built not in kernels:
            raise ValueError("the direct copy%s has no kernel for (warps, ahead, chains, blocks_per_sm) = %s (built: %s)"
                             % (" with combine 'cluster'" if cluster else "", built, sorted(kernels)))
        if cluster and chunks != _CLUSTER_CHUNKS:
            raise ValueError("combine 'cluster' needs chunks = %d (one cluster per KV head), not %d"
                             % (_CLUSTER_CHUNKS, chunks))
        if cluster and cfg.get("merge_lanes", 1) != 1:  # variants 22 and 23 name the one lane
            raise ValueError("merge_lanes must be 1: two lanes per output measured 0.27 us slower and were removed")
        kernel = "%s%s_w%d_a%d_c%d_b%d" % ((_COPIES[copy], ("_cluster%d" % chunks if cluster else "")
                                            + ("_dynamic" if deal == "dynamic" else "") + ("_tail" if tail else ""))
                                           + built)
        shared_bytes = (warps + (chunks - 1 if cluster else 0)) * _WARP_RESULT_BYTES
    elif cluster:
        raise ValueError("combine 'cluster' needs copy 'direct', not %r" % copy)
    else:
        stages = cfg["stages"]
        if (warps, stages) not in _BUILT:
            raise ValueError("decode_attention_cuda has no kernel for %d warps x %d stages (built: %s)"
                             % (warps, stages, sorted(_BUILT)))
        kernel, shared_bytes = "%s_w%d_s%d" % (_COPIES[copy], warps, stages), warps * stages * _STAGE_BYTES
    _, hkv, seq, dim = _checked_shapes(q, k, v)
    _check_split(seq, chunks, warps, order, copy)
    out = torch.empty_like(q)
    scale_log2 = 1.0 / math.sqrt(dim) * 1.4426950408889634
    if cluster:
        in_clusters = min(hkv, _clusters_that_fit(kernel, hkv, warps, shared_bytes))
        tail_state = _tail_state(q.device, hkv) if tail else q  # the kernel's `tickets`
        _module().launch(kernel, (chunks, in_clusters), (32 * warps,),
                         [q, k, v, q, q, q, tail_state, out, seq, scale_log2, _ORDERS[order], _COMBINES[combine],
                          int(_stop_after)],  # the partials never leave the cluster: no buffers, no tickets
                         shared_bytes=shared_bytes, non_portable_cluster=True)
        if in_clusters < hkv:  # the heads left over: the secondary, on the SMs the clusters leave
            # Always interleaved, which lets its warps take unequal numbers of tiles (its blocks
            # fill whatever SMs are left, not a divisor of the tiles).
            rest_chunks = cfg.get("secondary_chunks", chunks)
            _check_split(seq, rest_chunks, warps, "interleaved", copy, "secondary_chunks")
            first = 4 * in_clusters
            secondary = "%s_secondary%d_w%d_a%d_c%d_b%d" % ((_COPIES[copy], chunks) + built)  # deals statically
            _launch_ticket_kernel(secondary, q[:, first:], k[:, in_clusters:],
                                  v[:, in_clusters:], out[:, first:], rest_chunks, warps, warps * _WARP_RESULT_BYTES,
                                  scale_log2, "interleaved", "ticket-release", _stop_after, programmatic=True)
        return out
    _launch_ticket_kernel(kernel, q, k, v, out, chunks, warps, shared_bytes, scale_log2, order, combine, _stop_after)
    return out


def _check_split(seq, chunks, warps, order, copy, name="chunks"):
    """A ValueError unless every warp of chunks x warps gets whole 16-key tiles: as many each, or, for
    the direct copy in the interleaved order, at least one each (tile w + j P for warp w of P)."""
    if copy == "direct" and order == "interleaved":
        if seq % 16 != 0 or seq // 16 < chunks * warps:
            raise ValueError("S = %d must be a multiple of 16 and hold at least %s x warps = %d tiles of 16 keys"
                             % (seq, name, chunks * warps))
    elif seq % (chunks * warps * 16) != 0:
        raise ValueError("S = %d is not a multiple of %s x warps x 16 = %d" % (seq, name, chunks * warps * 16))


def _launch_ticket_kernel(kernel, q, k, v, out, chunks, warps, shared_bytes, scale_log2, order, combine, stop_after,
                          programmatic=False):
    """One launch of a kernel whose blocks publish partials to global memory (every combine but the
    cluster's); q, k, v and out may be views of the heads it is to handle."""
    hkv, seq, dim = k.shape[1], k.shape[2], k.shape[3]
    if combine == "tagged":
        part_acc = part_ml = tagged = _tagged_partials(q.device, hkv * chunks * 4)  # acc and ml go unused
    else:
        part_acc = torch.empty(hkv * chunks * 4 * dim, device=q.device, dtype=torch.float32)
        part_ml = torch.empty(hkv * chunks * 4 * 2, device=q.device, dtype=torch.float32)
        tagged = part_acc  # unused
    _module().launch(kernel, (chunks, hkv), (32 * warps,),
                     [q, k, v, part_acc, part_ml, tagged, _ticket_counters(q.device, hkv), out, seq, scale_log2,
                      _ORDERS[order], _COMBINES[combine], int(stop_after)],
                     shared_bytes=shared_bytes, programmatic=programmatic)


def _clusters_that_fit(kernel, hkv, warps, shared_bytes):
    """How many clusters of the kernel run at once (the driver's count for this GPU)."""
    key = (torch.cuda.current_device(), kernel)
    if key not in _clusters_fit:
        _clusters_fit[key] = _module().max_active_clusters(kernel, (_CLUSTER_CHUNKS, hkv), (32 * warps,), shared_bytes,
                                                           non_portable_cluster=True)
    if _clusters_fit[key] < 1:
        raise ValueError("combine 'cluster': this GPU cannot run a cluster of %d blocks of %d warps; use combine "
                         "'ticket-release'" % (_CLUSTER_CHUNKS, warps))
    return _clusters_fit[key]
