# SPDX-License-Identifier: Apache-2.0
"""Checks the tuned kernels against fp32 references and sweeps their configurations on the GPU.

Times each by CUDA-graph replay of a block of calls on rotated inputs (the contract's timer), and
prints one table per kernel. Run on the GPU machine: python3 bench/gpu/sweep.py [--quick]
"""
import json
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/examples")
import tuned_kernels as tk  # noqa: E402

L2 = torch.cuda.get_device_properties(0).L2_cache_size
results = []


def graph_time_us(fn, input_sets, iters=40, replays=5):
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(3):
            fn(*input_sets[i % len(input_sets)])
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(iters):
            fn(*input_sets[i % len(input_sets)])
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) * 1000 / iters)
    return statistics.median(times)


def rotated(make, bytes_per_set):
    k = max(2, -(-2 * L2 // bytes_per_set) + 1)
    return [make() for _ in range(k)]


def report(name, variant, us, bytes_moved, err, ok):
    gbs = bytes_moved / (us * 1e-6) / 1e9
    results.append(dict(kernel=name, variant=variant, us=round(us, 2), gbs=round(gbs), max_err=err, ok=ok))
    print(f"{name:10s} {variant:46s} {us:9.2f} us {gbs:7.0f} GB/s  err {err:.3g} {'ok' if ok else 'MISMATCH'}", flush=True)


def check(out, ref, tol=1e-2):
    err = (out.float() - ref.float()).abs().max().item()
    ok = torch.allclose(out.float(), ref.float(), atol=tol, rtol=tol) and torch.isfinite(out.float()).all().item()
    return err, ok


def rmsnorm_suite():
    m, n = 4096, 8192
    sets = rotated(lambda: (torch.randn(m, n, device="cuda", dtype=torch.bfloat16),
                            torch.randn(n, device="cuda", dtype=torch.bfloat16)), m * n * 2)
    x, w = sets[0]
    ref = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()
    eager = lambda x, w: x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype) * w  # noqa: E731
    report("rmsnorm", "eager", graph_time_us(eager, sets), 2 * m * n * 2, *check(eager(x, w), ref))
    for warps in (4, 8, 16, 32):
        f = lambda x, w, nw=warps: tk.rmsnorm(x, w, num_warps=nw)  # noqa: E731
        report("rmsnorm", f"triton warps={warps}", graph_time_us(f, sets), 2 * m * n * 2, *check(f(x, w), ref))


def softmax_suite():
    m, n = 4096, 8192
    sets = rotated(lambda: (torch.randn(m, n, device="cuda", dtype=torch.bfloat16),), m * n * 2)
    (x,) = sets[0]
    ref = torch.softmax(x.float(), dim=-1)
    report("softmax", "torch.softmax", graph_time_us(lambda x: torch.softmax(x, -1), sets), 2 * m * n * 2,
           *check(torch.softmax(x, -1), ref))
    for warps in (4, 8, 16, 32):
        f = lambda x, nw=warps: tk.softmax(x, num_warps=nw)  # noqa: E731
        report("softmax", f"triton warps={warps}", graph_time_us(f, sets), 2 * m * n * 2, *check(f(x), ref))


def gemv_suite(quick):
    n = 8192
    sets = rotated(lambda: (torch.randn(n, n, device="cuda", dtype=torch.bfloat16),
                            torch.randn(n, device="cuda", dtype=torch.bfloat16)), n * n * 2)
    w, x = sets[0]
    ref = w.float() @ x.float()
    moved = n * n * 2 + 2 * n * 2
    report("gemv", "torch.mv", graph_time_us(torch.mv, sets), moved, *check(torch.mv(w, x), ref, 5e-2))
    configs = []
    for bm in (1, 2, 4):
        for bk in (512, 1024, 2048, 4096):
            for nw in (2, 4, 8):
                for ns in (2, 4, 5):
                    if bm * bk // (nw * 32) > 64:
                        continue
                    configs.append(dict(BLOCK_M=bm, BLOCK_K=bk, num_warps=nw, num_stages=ns))
    if quick:
        configs = configs[::4]
    for cfg in configs:
        f = lambda w, x, c=cfg: tk.gemv(w, x, c)  # noqa: E731
        try:
            report("gemv", json.dumps(cfg, separators=(",", ":")), graph_time_us(f, sets), moved, *check(f(w, x), ref, 5e-2))
        except Exception as e:  # a config that does not compile is skipped, not fatal
            print("gemv", cfg, "failed:", str(e).splitlines()[0], flush=True)


def decode_suite(quick):
    hq, hkv, s, d = 32, 8, 32768, 128
    sets = rotated(lambda: (torch.randn(1, hq, 1, d, device="cuda", dtype=torch.bfloat16),
                            torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16),
                            torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16)), 2 * hkv * s * d * 2)
    q, k, v = sets[0]
    ref = F.scaled_dot_product_attention(q.float(), k.float().repeat_interleave(hq // hkv, 1),
                                         v.float().repeat_interleave(hq // hkv, 1))
    moved = 2 * hkv * s * d * 2 + 2 * hq * d * 2
    from torch.nn.attention import SDPBackend, sdpa_kernel
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION),
                          ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("math", SDPBackend.MATH)):
        def f(q, k, v, b=backend):
            with sdpa_kernel(b):
                return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        try:
            report("decode", f"sdpa {name}", graph_time_us(f, sets), moved, *check(f(q, k, v), ref))
        except Exception as e:
            print("decode", name, "failed:", str(e).splitlines()[0][:200], flush=True)
    best_two_launch = dict(n_splits=16, BLOCK_N=128, num_warps=4, num_stages=3)  # best of the first sweep
    runs = [("two-launch", tk.decode_attention, best_two_launch)]
    fused = [dict(n_splits=sp, BLOCK_N=bn, num_warps=nw, num_stages=ns)
             for sp in (16, 32, 64) for bn in (64, 128) for nw in (4, 8) for ns in (2, 3, 4)
             if (s // sp) % bn == 0]
    if quick:
        fused = fused[::3]
    runs += [("fused", tk.decode_attention_fused, c) for c in fused]
    for variant, impl, cfg in runs:
        f = lambda q, k, v, c=cfg, i=impl: i(q, k, v, c)  # noqa: E731
        try:
            out = f(q, k, v)
            out2 = f(q, k, v)  # a second call proves the counters were reset
            torch.cuda.synchronize()
            err, ok = check(out, ref)
            ok = ok and torch.equal(out, out2)
            report("decode", variant + " " + json.dumps(cfg, separators=(",", ":")), graph_time_us(f, sets), moved, err, ok)
        except Exception as e:
            print("decode", variant, cfg, "failed:", str(e).splitlines()[0][:200], flush=True)


def copy_suite():
    n = 1 << 28  # 512 MiB of bf16... per set; rotation keeps it out of L2
    sets = rotated(lambda: (torch.empty(n // 4, device="cuda", dtype=torch.bfloat16).normal_(),), n // 2)
    f = lambda x: x.clone()  # noqa: E731
    report("copy", "torch clone (read+write)", graph_time_us(f, sets, iters=10), 2 * (n // 4) * 2, 0.0, True)


def int4_suite(quick):
    sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/examples")
    import kernels as ex  # the example target's derive, baseline and reference

    n = k = 8192
    sets = []
    for _ in range(3):
        raw = {"x": torch.randn(1, k, device="cuda", dtype=torch.bfloat16),
               "w": torch.randn(n, k, device="cuda", dtype=torch.bfloat16)}
        d = ex.int4_derive(raw)
        sets.append((d["x"], d["w_int4pack"], d["scales_zeros"], d["w_nibbles"]))
    ref = ex.int4_gemv_reference(*sets[0])
    moved = 35667968 + n * 2
    report("int4", "tinygemm _weight_int4pack_mm", graph_time_us(ex.int4_gemv, sets), moved,
           *check(ex.int4_gemv(*sets[0]), ref, 0.5))
    best_words = dict(BLOCK_N=8, GROUPS=4, num_warps=4, num_stages=3)  # best Triton version of the first sweep
    f = lambda x, p, sz, wn: tk.int4_gemv_words(x, wn, sz, 128, best_words)  # noqa: E731
    report("int4", "triton words " + json.dumps(best_words, separators=(",", ":")), graph_time_us(f, sets), moved,
           *check(f(*sets[0]), ref, 0.5))
    import int4_gemv_cuda as cu
    for rows in (1, 2, 4, 8):
        for warps in (4, 8, 16):
            cfg = dict(rows=rows, warps=warps)
            f = lambda x, p, sz, wn, c=cfg: cu.int4_gemv_cuda(x, wn, sz, 128, c)  # noqa: E731
            try:
                report("int4", "cuda " + json.dumps(cfg, separators=(",", ":")), graph_time_us(f, sets), moved,
                       *check(f(*sets[0]), ref, 0.5))
            except Exception as e:
                print("int4", cfg, "failed:", str(e).splitlines()[0][:200], flush=True)


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    print(torch.cuda.get_device_name(0), "L2", L2, "torch", torch.__version__, flush=True)
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    suites = [("copy", copy_suite), ("rmsnorm", rmsnorm_suite), ("softmax", softmax_suite),
              ("gemv", lambda: gemv_suite(quick)), ("decode", lambda: decode_suite(quick)),
              ("int4", lambda: int4_suite(quick))]
    for name, suite in suites:
        if only is None or name in only:
            suite()
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    if out:
        with open(out, "w") as fh:
            json.dump(results, fh, indent=1)
