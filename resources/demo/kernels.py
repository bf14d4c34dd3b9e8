# SPDX-License-Identifier: Apache-2.0
"""Baselines, fp32 references and the int4 derive for the bundled example targets.

The targets' scripts (NAME_baseline.py, NAME_candidate.py) load these functions as ./kernels.py:NAME;
regenerate.sh makes the scripts with `hotkernel new`. Everything here is plain eager PyTorch: the
kernels to beat, not fast ones.
"""

import math

import torch

# rmsnorm -------------------------------------------------------------------------------------------


def rmsnorm(x, w, eps=1e-6):
    """Eager RMSNorm over the last dimension: x * rsqrt(mean(x^2) + eps) * w, computed in fp32."""
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


# softmax -------------------------------------------------------------------------------------------


def softmax(x):
    return torch.softmax(x, dim=-1)


# decode attention (1 query token against a 32K KV cache, GQA) --------------------------------------


def decode_attention(q, k, v):
    """q [B, Hq, 1, D], k and v [B, Hkv, S, D] with Hq a multiple of Hkv: PyTorch's SDPA."""
    sdpa = torch.nn.functional.scaled_dot_product_attention
    try:
        return sdpa(q, k, v, enable_gqa=True)
    except TypeError:  # torch < 2.5 has no enable_gqa: repeat the KV heads (one more copy of K and V)
        groups = q.shape[1] // k.shape[1]
        return sdpa(q, k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1))


def decode_attention_reference(q, k, v):
    """The same attention written out in fp32 (the contract passes fp32 copies)."""
    groups = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(groups, dim=1)
    v = v.repeat_interleave(groups, dim=1)
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    return torch.matmul(torch.softmax(scores, dim=-1), v)


# int4 GEMV, group-wise asymmetric quantisation in PyTorch's tinygemm format -----------------------

INT4_GROUP = 128
INT4_INNER_K_TILES = 8


def int4_derive(raw):
    """Quantises the raw fp weights w [N, K] to 4 bits per group of 128 along K.

    Returns the call inputs: x [1, K] (bf16 activations, as drawn), w_int4pack (tinygemm's packed
    layout, what torch._weight_int4pack_mm reads), scales_zeros [K/128, N, 2] bf16 and w_nibbles
    [N, K/2] uint8 (the same 4-bit values in plain row-major order, high nibble = even k: a layout
    a hand-written kernel can read, and what the reference dequantises). A weight is
    (q - 8) * scale + zero, so zero = min + 8 * scale.
    """
    w = raw["w"].float()
    n, k = w.shape
    groups = w.reshape(n, k // INT4_GROUP, INT4_GROUP)
    lo = groups.amin(dim=-1, keepdim=True)
    hi = groups.amax(dim=-1, keepdim=True)
    scale = ((hi - lo) / 15).clamp(min=1e-6)
    q = ((groups - lo) / scale).round().clamp(0, 15).to(torch.uint8).reshape(n, k)
    zero = lo + 8 * scale
    scales_zeros = torch.stack([scale.squeeze(-1), zero.squeeze(-1)], dim=-1)  # [N, K/G, 2]
    scales_zeros = scales_zeros.transpose(0, 1).contiguous().to(torch.bfloat16)  # [K/G, N, 2]
    nibbles = (q[:, 0::2] << 4) | q[:, 1::2]
    try:
        packed = torch._convert_weight_to_int4pack(nibbles, INT4_INNER_K_TILES)  # torch >= 2.5: uint8 [N, K/2]
    except RuntimeError:
        packed = torch._convert_weight_to_int4pack(q.to(torch.int32), INT4_INNER_K_TILES)  # older: int32 [N, K]
    return {"x": raw["x"], "w_int4pack": packed, "scales_zeros": scales_zeros, "w_nibbles": nibbles}


def int4_gemv(x, w_int4pack, scales_zeros, w_nibbles):
    """PyTorch's int4 kernel (tinygemm); w_nibbles is there for candidates and the reference."""
    return torch._weight_int4pack_mm(x, w_int4pack, INT4_GROUP, scales_zeros)


def int4_gemv_reference(x, w_int4pack, scales_zeros, w_nibbles):
    """Dequantises w_nibbles with the bf16 scales and zeros, in fp32, then x @ w^T in fp32."""
    n, half_k = w_nibbles.shape
    k = 2 * half_k
    q = torch.stack([(w_nibbles >> 4), (w_nibbles & 15)], dim=-1).reshape(n, k).float()
    sz = scales_zeros.float()  # [K/G, N, 2]
    scale = sz[..., 0].t().unsqueeze(-1)  # [N, K/G, 1]
    zero = sz[..., 1].t().unsqueeze(-1)
    w = ((q.reshape(n, k // INT4_GROUP, INT4_GROUP) - 8) * scale + zero).reshape(n, k)
    return x.float() @ w.t()
