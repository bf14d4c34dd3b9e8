# SPDX-License-Identifier: Apache-2.0
"""Triton kernels for the five example targets (the candidates import these).

Each was written for the H200 by running the kernel-speedrun loop; examples/README.md and the
recorded notes under results/ say what each change did. Shapes are the examples' shapes, but the
kernels take any size that the asserts allow.
"""
import torch
import triton
import triton.language as tl


# --- rmsnorm: one program per row, the row held in registers, one read and one write -----------
@triton.jit
def _rmsnorm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * n_cols + cols, (x * inv * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x, w, eps=1e-6, num_warps=16):
    assert x.is_contiguous() and x.dim() == 2 and w.numel() == x.shape[1]
    y = torch.empty_like(x)
    _rmsnorm_kernel[(x.shape[0],)](x, w, y, x.shape[1], eps, BLOCK=triton.next_power_of_2(x.shape[1]),
                                   num_warps=num_warps)
    return y


# --- softmax over the last dim: one program per row, max, exp and sum in registers --------------
@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"), eviction_policy="evict_first").to(tl.float32)
    e = tl.exp2((x - tl.max(x, axis=0)) * 1.4426950408889634)
    tl.store(y_ptr + row * n_cols + cols, (e / tl.sum(e, axis=0)).to(y_ptr.dtype.element_ty), mask=mask)


def softmax(x, num_warps=16):
    assert x.is_contiguous() and x.dim() == 2
    y = torch.empty_like(x)
    _softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]), num_warps=num_warps)
    return y


# --- gemv y = W x: a block of rows per program, fp32 accumulation ------------------------------
@triton.jit
def _gemv_kernel(w_ptr, x_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    row_base = rows.to(tl.int64)[:, None] * n_cols
    for k in range(0, n_cols, BLOCK_K):
        cols = k + tl.arange(0, BLOCK_K)
        w = tl.load(w_ptr + row_base + cols[None, :], eviction_policy="evict_first")
        xv = tl.load(x_ptr + cols, eviction_policy="evict_last")
        acc += w.to(tl.float32) * xv.to(tl.float32)[None, :]
    tl.store(y_ptr + rows, tl.sum(acc, axis=1).to(y_ptr.dtype.element_ty))


GEMV_CONFIG = dict(BLOCK_M=1, BLOCK_K=1024, num_warps=4, num_stages=4)


def gemv(w, x, config=None):
    cfg = dict(GEMV_CONFIG if config is None else config)
    n_rows, n_cols = w.shape
    assert w.is_contiguous() and n_rows % cfg["BLOCK_M"] == 0 and n_cols % cfg["BLOCK_K"] == 0
    y = torch.empty(n_rows, device=w.device, dtype=w.dtype)
    _gemv_kernel[(n_rows // cfg["BLOCK_M"],)](w, x, y, n_rows, n_cols, BLOCK_M=cfg["BLOCK_M"], BLOCK_K=cfg["BLOCK_K"],
                                             num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
    return y


# --- decode attention (one query token, GQA): split-KV partials, then a combine --------------
@triton.jit
def _decode_split(q_ptr, k_ptr, v_ptr, m_ptr, l_ptr, acc_ptr, scale_log2, seq_len, chunk, kv_head, split,
                  N_SPLITS, head_rotation, GROUP: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr,
                  D: tl.constexpr, INTERLEAVED: tl.constexpr = False, STAGGER: tl.constexpr = False):
    """One split of one KV head: online softmax over its keys, for the GROUP query heads at once
    (one tl.dot of BLOCK_H rows); stores the split's running max, sum and unnormalised output.

    A split is `chunk` consecutive keys, or with INTERLEAVED the blocks split, split + N_SPLITS, ...
    of BLOCK_N keys: then step j of all splits of a KV head reads one contiguous window, which the
    CUDA version measured 5% faster than thousands of scattered streams (bench/gpu/results/).
    With STAGGER, KV head h starts its walk h * head_rotation steps in (and wraps), so that the
    heads' windows do not sit at the same offset of their regions; on the H200 that changed 0-1%
    (bench/gpu/results/decode-probe-2026-12-02-2258.txt), so the candidate leaves it off."""
    h = tl.arange(0, BLOCK_H)
    hmask = h < GROUP
    d = tl.arange(0, D)
    q = tl.load(q_ptr + (kv_head * GROUP + h)[:, None] * D + d[None, :], mask=hmask[:, None], other=0.0)
    m_i = tl.full((BLOCK_H,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_H,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_H, D), dtype=tl.float32)
    base = kv_head.to(tl.int64) * seq_len * D
    start = split * chunk
    steps = chunk // BLOCK_N
    for i in range(0, steps):
        if STAGGER:
            j = (i + kv_head * head_rotation) % steps
        else:
            j = i
        if INTERLEAVED:
            n = (j * N_SPLITS + split) * BLOCK_N
        else:
            n = start + j * BLOCK_N
        offs = (n + tl.arange(0, BLOCK_N)).to(tl.int64)
        k = tl.load(k_ptr + base + offs[:, None] * D + d[None, :], eviction_policy="evict_first")
        s = tl.dot(q, tl.trans(k)) * scale_log2
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + offs[:, None] * D + d[None, :], eviction_policy="evict_first")
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = (kv_head * GROUP + h) * N_SPLITS + split
    tl.store(m_ptr + out, m_i, mask=hmask)
    tl.store(l_ptr + out, l_i, mask=hmask)
    tl.store(acc_ptr + out[:, None] * D + d[None, :], acc, mask=hmask[:, None])


@triton.jit
def _decode_partial_kernel(q_ptr, k_ptr, v_ptr, m_ptr, l_ptr, acc_ptr, scale_log2, seq_len, chunk,
                           head_rotation, GROUP: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr,
                           D: tl.constexpr, INTERLEAVED: tl.constexpr, STAGGER: tl.constexpr,
                           EARLY_COMBINE: tl.constexpr = False):
    if EARLY_COMBINE:  # the combine kernel's programs may take free SM slots now; they wait in gdc_wait
        tl.extra.cuda.gdc_launch_dependents()
    _decode_split(q_ptr, k_ptr, v_ptr, m_ptr, l_ptr, acc_ptr, scale_log2, seq_len, chunk, tl.program_id(0),
                  tl.program_id(1), tl.num_programs(1), head_rotation, GROUP, BLOCK_H, BLOCK_N, D, INTERLEAVED,
                  STAGGER)


@triton.jit
def _decode_combine_kernel(m_ptr, l_ptr, acc_ptr, o_ptr, N_SPLITS: tl.constexpr, D: tl.constexpr,
                           WAIT_FOR_SPLITS: tl.constexpr = False):
    if WAIT_FOR_SPLITS:  # launched early (programmatic dependent launch): every split's partial is written after this
        tl.extra.cuda.gdc_wait()
    head = tl.program_id(0)
    s = tl.arange(0, N_SPLITS)
    d = tl.arange(0, D)
    m = tl.load(m_ptr + head * N_SPLITS + s)
    l = tl.load(l_ptr + head * N_SPLITS + s)
    acc = tl.load(acc_ptr + (head * N_SPLITS + s)[:, None] * D + d[None, :])
    w = tl.exp2(m - tl.max(m, axis=0))
    out = tl.sum(acc * w[:, None], axis=0) / tl.sum(l * w, axis=0)
    tl.store(o_ptr + head * D + d, out.to(o_ptr.dtype.element_ty))


DECODE_CONFIG = dict(n_splits=32, BLOCK_N=64, num_warps=8, num_stages=3)


def _head_rotation(cfg, seq, hkv):
    """Steps by which each KV head's walk is rotated with the `stagger` option (0 without it)."""
    return (seq // cfg["n_splits"] // cfg["BLOCK_N"]) // hkv if cfg.get("stagger") else 0


def _decode_setup(q, k, config):
    """What both decode launches share: the config, the shapes, the split partials (m, l, acc),
    the output and the softmax scale in log2 units."""
    cfg = dict(DECODE_CONFIG if config is None else config)
    _, hq, _, dim = q.shape
    _, hkv, seq, _ = k.shape
    n_splits = cfg["n_splits"]
    assert seq % n_splits == 0 and (seq // n_splits) % cfg["BLOCK_N"] == 0
    m = torch.empty(hq * n_splits, device=q.device, dtype=torch.float32)
    partials = (m, torch.empty_like(m), torch.empty(hq * n_splits, dim, device=q.device, dtype=torch.float32))
    scale_log2 = (1.0 / dim ** 0.5) * 1.4426950408889634
    return cfg, (hq, hkv, seq, dim, hq // hkv), partials, torch.empty_like(q), scale_log2


def decode_attention(q, k, v, config=None):
    """q [B=1, Hq, 1, D], k/v [1, Hkv, S, D] contiguous; returns [1, Hq, 1, D] like SDPA with GQA.

    With the `early_combine` option the combine kernel is launched as a programmatic dependent of
    the split kernel (Hopper and later): its programs are resident before the splits finish and
    start the moment they do, instead of after a launch. Only the combine is launched so; the next
    call's split kernel still waits for this call to finish, so calls never overlap. On the H200 it
    saved 0.2-0.8 us (bench/gpu/results/decode_split_sweep-2026-12-02-2335.txt), not enough to beat
    the kept candidate in verify, so the candidate leaves it off."""
    cfg, (hq, hkv, seq, dim, group), (m, l, acc), o, scale_log2 = _decode_setup(q, k, config)
    n_splits = cfg["n_splits"]
    early = bool(cfg.get("early_combine", False))
    _decode_partial_kernel[(hkv, n_splits)](q, k, v, m, l, acc, scale_log2, seq, seq // n_splits,
                                            _head_rotation(cfg, seq, hkv), GROUP=group,
                                            BLOCK_H=max(16, triton.next_power_of_2(group)), BLOCK_N=cfg["BLOCK_N"],
                                            D=dim, INTERLEAVED=bool(cfg.get("interleaved", False)),
                                            STAGGER=bool(cfg.get("stagger", False)), EARLY_COMBINE=early,
                                            num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
    _decode_combine_kernel[(hq,)](m, l, acc, o, N_SPLITS=n_splits, D=dim, WAIT_FOR_SPLITS=early, num_warps=4,
                                  launch_pdl=early)
    return o


# Second version: one launch. Each program writes its partial, and the program that finishes a
# KV head's splits last (an acq_rel counter per KV head, reset by that program for the next call)
# combines them: no combine kernel, no gap between launches in a graph.
@triton.jit
def _decode_fused_kernel(q_ptr, k_ptr, v_ptr, m_ptr, l_ptr, acc_ptr, o_ptr, count_ptr, scale_log2, seq_len, chunk,
                         GROUP: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr,
                         N_SPLITS: tl.constexpr, INTERLEAVED: tl.constexpr, STAGGER: tl.constexpr, head_rotation):
    kv_head = tl.program_id(0)
    _decode_split(q_ptr, k_ptr, v_ptr, m_ptr, l_ptr, acc_ptr, scale_log2, seq_len, chunk, kv_head, tl.program_id(1),
                  N_SPLITS, head_rotation, GROUP, BLOCK_H, BLOCK_N, D, INTERLEAVED, STAGGER)
    h = tl.arange(0, BLOCK_H)
    hmask = h < GROUP
    d = tl.arange(0, D)
    heads = kv_head * GROUP + h
    tl.debug_barrier()  # every warp's partial is written before the counter says so
    done = tl.atomic_add(count_ptr + kv_head, 1, sem="acq_rel", scope="gpu")
    if done == N_SPLITS - 1:
        sp = tl.arange(0, N_SPLITS)
        rows = heads[:, None] * N_SPLITS + sp[None, :]
        m_all = tl.load(m_ptr + rows, mask=hmask[:, None], other=-float("inf"), cache_modifier=".cg")
        l_all = tl.load(l_ptr + rows, mask=hmask[:, None], other=0.0, cache_modifier=".cg")
        m_max = tl.max(m_all, axis=1)
        denom = tl.sum(l_all * tl.exp2(m_all - m_max[:, None]), axis=1)
        out = tl.zeros((BLOCK_H, D), dtype=tl.float32)
        for j in tl.static_range(N_SPLITS):  # unrolled: the split loads are independent, issue them together
            row = heads * N_SPLITS + j
            m_j = tl.load(m_ptr + row, mask=hmask, other=0.0, cache_modifier=".cg")
            a_j = tl.load(acc_ptr + row[:, None] * D + d[None, :], mask=hmask[:, None], other=0.0, cache_modifier=".cg")
            out += a_j * tl.exp2(m_j - m_max)[:, None]
        out = out / denom[:, None]
        tl.store(o_ptr + heads[:, None] * D + d[None, :], out.to(o_ptr.dtype.element_ty), mask=hmask[:, None])
        tl.atomic_xchg(count_ptr + kv_head, 0)  # ready for the next call (same stream, so no overlap)


_decode_counters = {}


def decode_attention_fused(q, k, v, config=None):
    """decode_attention in one launch; the per-KV-head counters live across calls (zeroed once)."""
    cfg, (hq, hkv, seq, dim, group), (m, l, acc), o, scale_log2 = _decode_setup(q, k, config)
    n_splits = cfg["n_splits"]
    key = (q.device, hkv)
    if key not in _decode_counters:
        _decode_counters[key] = torch.zeros(hkv, device=q.device, dtype=torch.int32)
    _decode_fused_kernel[(hkv, n_splits)](q, k, v, m, l, acc, o, _decode_counters[key], scale_log2, seq,
                                          seq // n_splits, GROUP=group, BLOCK_H=max(16, triton.next_power_of_2(group)),
                                          BLOCK_N=cfg["BLOCK_N"], D=dim, N_SPLITS=n_splits,
                                          INTERLEAVED=bool(cfg.get("interleaved", False)),
                                          STAGGER=bool(cfg.get("stagger", False)),
                                          head_rotation=_head_rotation(cfg, seq, hkv),
                                          num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
    return o


# --- int4 GEMV (group 128) ----------------------------------------------------------------
# Second version, in the example target's layout (examples/kernels.py int4_derive): w_nibbles uint8
# [N, K/2] with the EVEN k in the HIGH nibble, scales_zeros bf16 [K/128, N, 2]. The packed weight is
# read as 32-bit words (8 nibbles each) and nibbles become floats with the 2^23 trick (OR the nibble
# into the mantissa of 8388608.0, subtract 8388616.0 = 2^23 + 8), because int-to-float conversions
# run at a quarter of the FMA rate and were the bottleneck of the first version.
@triton.jit
def _int4_gemv_words_kernel(x_ptr, w_ptr, sz_ptr, y_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr,
                            GROUPS: tl.constexpr, GS: tl.constexpr):
    WPG: tl.constexpr = GS // 8  # words per group
    rows = (tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    n_groups = n_cols // GS
    n_words = n_cols // 8
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    i = tl.arange(0, GROUPS * WPG)
    for g0 in range(0, n_groups, GROUPS):
        words = tl.load(w_ptr + rows[:, None] * n_words + g0 * WPG + i[None, :], eviction_policy="evict_first")
        prod = tl.zeros((BLOCK_N, GROUPS * WPG), dtype=tl.float32)
        xsum = tl.zeros((GROUPS * WPG,), dtype=tl.float32)
        for t in tl.static_range(8):
            # byte t // 2 of the little-endian word; even k sits in its high nibble
            shift = 8 * (t // 2) + 4 * (1 - t % 2)
            bits = ((words >> shift) & 0xF) | 0x4B000000
            q = bits.to(tl.float32, bitcast=True) - 8388616.0
            xt = tl.load(x_ptr + g0 * GS + 8 * i + t).to(tl.float32)
            prod += q * xt[None, :]
            xsum += xt
        dq = tl.sum(tl.reshape(prod, (BLOCK_N, GROUPS, WPG)), axis=2)
        sx = tl.sum(tl.reshape(xsum, (GROUPS, WPG)), axis=1)
        g = (g0 + tl.arange(0, GROUPS)).to(tl.int64)
        sz = sz_ptr + (g[None, :] * n_rows + rows[:, None]) * 2
        s = tl.load(sz).to(tl.float32)
        z = tl.load(sz + 1).to(tl.float32)
        acc += tl.sum(s * dq + z * sx[None, :], axis=1)
    tl.store(y_ptr + rows, acc.to(y_ptr.dtype.element_ty))


INT4_WORDS_CONFIG = dict(BLOCK_N=8, GROUPS=4, num_warps=4, num_stages=3)


def int4_gemv_words(x, w_nibbles, scales_zeros, group_size=128, config=None):
    """x [1, K] bf16, w_nibbles uint8 [N, K/2] (even k high), scales_zeros bf16 [K/G, N, 2] -> [1, N]."""
    cfg = dict(INT4_WORDS_CONFIG if config is None else config)
    n_rows = w_nibbles.shape[0]
    n_cols = w_nibbles.shape[1] * 2
    assert n_rows % cfg["BLOCK_N"] == 0 and (n_cols // group_size) % cfg["GROUPS"] == 0
    assert w_nibbles.is_contiguous() and scales_zeros.is_contiguous()
    words = w_nibbles.view(torch.int32)
    xf = x.reshape(-1)
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    _int4_gemv_words_kernel[(n_rows // cfg["BLOCK_N"],)](xf, words, scales_zeros, y, n_rows, n_cols,
                                                         BLOCK_N=cfg["BLOCK_N"], GROUPS=cfg["GROUPS"],
                                                         GS=group_size, num_warps=cfg["num_warps"],
                                                         num_stages=cfg["num_stages"])
    return y.reshape(*x.shape[:-1], n_rows)
