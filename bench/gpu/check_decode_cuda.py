# SPDX-License-Identifier: Apache-2.0
"""Checks the CUDA C++ decode attention (examples/decode_attention.cu) against the fp32 reference on
several shapes and score ranges, then sweeps its (warps, stages, chunks) configurations next to cuDNN
SDPA (the recorded baseline) and the Triton two-launch candidate, all timed by graph replay in one
run so that the ratios are comparable. Run on the GPU machine:
    python3 bench/gpu/check_decode_cuda.py [--out FILE.json]
"""
import json
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402
import decode_attention_cuda as dac  # noqa: E402  (sweep put examples/ on the path)

ATOL, RTOL = 5e-4, 1e-2  # the target's tolerances (examples/decode_attention_baseline.py)


def reference(q, k, v):
    g = q.shape[1] // k.shape[1]
    return F.scaled_dot_product_attention(q.float(), k.float().repeat_interleave(g, 1), v.float().repeat_interleave(g, 1))


def within_tolerance(out, ref):
    err = (out.float() - ref).abs()
    excess = (err - (ATOL + RTOL * ref.abs())).max().item()
    return err.max().item(), excess <= 0 and torch.isfinite(out.float()).all().item()


def correctness():
    ok_all = True
    cases = [  # (Hkv, S, q scale, config): the q scale spreads the scores, so the running max moves
        (8, 32768, 1.0, dac.DECODE_CUDA_CONFIG),
        (8, 32768, 8.0, dac.DECODE_CUDA_CONFIG),
        (2, 4096, 1.0, dict(warps=4, stages=3, chunks=8)),
        (2, 4096, 30.0, dict(warps=1, stages=4, chunks=64)),
        (1, 2048, 1.0, dict(warps=8, stages=2, chunks=1)),
    ]
    for hkv, s, scale, cfg in cases:
        q = torch.randn(1, 4 * hkv, 1, 128, device="cuda", dtype=torch.bfloat16) * scale
        k = torch.randn(1, hkv, s, 128, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(1, hkv, s, 128, device="cuda", dtype=torch.bfloat16)
        out = dac.decode_attention_cuda(q, k, v, cfg)
        again = dac.decode_attention_cuda(q, k, v, cfg)  # the tickets were reset by the first call
        err, ok = within_tolerance(out, reference(q, k, v))
        ok = ok and torch.equal(out, again)
        ok_all &= ok
        print(f"check Hkv={hkv} S={s} q*{scale} {cfg}: max err {err:.3g} {'ok' if ok else 'MISMATCH'}", flush=True)
    return ok_all


def timing():
    hq, hkv, s, d = 32, 8, 32768, 128
    sets = sweep.rotated(lambda: (torch.randn(1, hq, 1, d, device="cuda", dtype=torch.bfloat16),
                                  torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16),
                                  torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16)), 2 * hkv * s * d * 2)
    q, k, v = sets[0]
    ref = reference(q, k, v)
    moved = 2 * hkv * s * d * 2 + 2 * hq * d * 2

    def sdpa(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    def triton_two_launch(q, k, v):
        return sweep.tk.decode_attention(q, k, v, dict(n_splits=16, BLOCK_N=128, num_warps=4, num_stages=3))

    def measure(name, f):
        out = f(q, k, v)
        err, ok = within_tolerance(out, ref)
        sweep.report("decode", name, sweep.graph_time_us(f, sets), moved, err, ok and torch.equal(out, f(q, k, v)))

    measure("sdpa default (cuDNN)", sdpa)
    measure("triton two-launch 16x128 w4 s3", triton_two_launch)
    for warps, stages in sorted(dac._BUILT):
        for chunks in (8, 16, 32, 64, 128, 256):
            per_warp = s // chunks // warps
            if per_warp % 16 or per_warp < 16 * stages:
                continue
            cfg = dict(warps=warps, stages=stages, chunks=chunks)
            try:
                measure("cuda " + json.dumps(cfg, separators=(",", ":")), lambda q, k, v, c=cfg: dac.decode_attention_cuda(q, k, v, c))
            except Exception as e:  # e.g. more shared memory than a block may have
                print("decode cuda", cfg, "failed:", str(e).splitlines()[0][:200], flush=True)
    measure("sdpa default (cuDNN), again", sdpa)


if __name__ == "__main__":
    print(torch.cuda.get_device_name(0), "torch", torch.__version__, flush=True)
    good = correctness()
    timing()
    if "--out" in sys.argv:
        with open(sys.argv[sys.argv.index("--out") + 1], "w") as fh:
            json.dump(sweep.results, fh, indent=1)
    best = sorted((r for r in sweep.results if r["ok"] and r["variant"].startswith("cuda")), key=lambda r: r["us"])[:5]
    print("fastest correct CUDA configurations:", *("%s %.2f us" % (r["variant"], r["us"]) for r in best), sep="\n  ")
    if not good or not all(r["ok"] for r in sweep.results):
        sys.exit("check_decode_cuda: a kernel disagrees with the reference")
