# SPDX-License-Identifier: Apache-2.0
"""Checks the two decode-attention kernels of examples/tuned_kernels.py against the fp32 reference and
times them by graph replay (after a refactor that shares their split loop). Run on the GPU machine."""
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402

hq, hkv, s, d = 32, 8, 32768, 128
sets = sweep.rotated(lambda: (torch.randn(1, hq, 1, d, device="cuda", dtype=torch.bfloat16),
                              torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16),
                              torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16)), 2 * hkv * s * d * 2)
q, k, v = sets[0]
ref = F.scaled_dot_product_attention(q.float(), k.float().repeat_interleave(hq // hkv, 1), v.float().repeat_interleave(hq // hkv, 1))
moved = 2 * hkv * s * d * 2 + 2 * hq * d * 2
for name, f in [("two-launch 16x128 w4 s3", lambda q, k, v: sweep.tk.decode_attention(q, k, v, dict(n_splits=16, BLOCK_N=128, num_warps=4, num_stages=3))),
                ("fused 16x128 w8 s3", lambda q, k, v: sweep.tk.decode_attention_fused(q, k, v, dict(n_splits=16, BLOCK_N=128, num_warps=8, num_stages=3)))]:
    out, again = f(q, k, v), f(q, k, v)
    err, ok = sweep.check(out, ref)
    sweep.report("decode", name, sweep.graph_time_us(f, sets), moved, err, ok and torch.equal(out, again))
if not all(r["ok"] for r in sweep.results):
    sys.exit("check_decode: a kernel disagrees with the reference")
