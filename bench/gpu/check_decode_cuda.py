# SPDX-License-Identifier: Apache-2.0
"""Checks the CUDA C++ decode attention (examples/decode_attention.cu) against the fp32 reference on
several shapes and score ranges, then sweeps its (warps, stages, chunks) configurations next to cuDNN
SDPA (the recorded baseline) and the Triton two-launch candidate, all timed by graph replay in one
run so that the ratios are comparable. Run on the GPU machine:
    python3 bench/gpu/check_decode_cuda.py [--out FILE.json] [--orders interleaved,chunk]
        [--copies thread,thread-prefetch,bulk] [--chunks 8,16,32] [--triton] [--stream-phase]
--triton adds the Triton kernels of examples/tuned_kernels.py in the interleaved order;
--stream-phase also times every CUDA configuration stopped after its streaming loop.
"""
import json
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402
import decode_attention_cuda as dac  # noqa: E402  (sweep put examples/ on the path)

ATOL, RTOL = 5e-4, 1e-2  # the target's tolerances (examples/decode_attention_baseline.py)
HQ, HKV, S, D = 32, 8, 32768, 128  # the target's shape
KV_BYTES = 2 * HKV * S * D * 2  # K and V, read once per call


def reference(q, k, v):
    g = q.shape[1] // k.shape[1]
    return F.scaled_dot_product_attention(q.float(), k.float().repeat_interleave(g, 1), v.float().repeat_interleave(g, 1))


def tolerance_excess(out, ref):
    """(largest absolute error, how far the worst element is beyond the tolerance: <= 0 within it)."""
    err = (out.float() - ref).abs()
    return err.max().item(), (err - (ATOL + RTOL * ref.abs())).max().item()


def within_tolerance(out, ref):
    err, excess = tolerance_excess(out, ref)
    return err, excess <= 0 and torch.isfinite(out.float()).all().item()


def second_call_agrees(out, again, ref, deterministic):
    """Whether a second call on the same inputs agrees with the first: bit for bit, or, for a kernel
    that sums each key in a warp chosen at run time (the dynamic deal), within the tolerance too."""
    return torch.equal(out, again) if deterministic else within_tolerance(again, ref)[1]


class Timing:
    """Rotated inputs of the target's shape (sets), the fp32 reference of the first and the bytes one
    call moves; measure(name, f) times f by graph replay and reports it with its error against the
    reference and whether two calls agree bit for bit."""

    def __init__(self):
        self.sets = sweep.rotated(lambda: (torch.randn(1, HQ, 1, D, device="cuda", dtype=torch.bfloat16),
                                           torch.randn(1, HKV, S, D, device="cuda", dtype=torch.bfloat16),
                                           torch.randn(1, HKV, S, D, device="cuda", dtype=torch.bfloat16)),
                                  KV_BYTES)
        self.ref = reference(*self.sets[0])
        self.moved = KV_BYTES + 2 * HQ * D * 2

    def measure(self, name, f, deterministic=True):
        """deterministic: the second call must repeat the first bit for bit; otherwise (the dynamic
        deal) it must be within the tolerance too."""
        q, k, v = self.sets[0]
        out = f(q, k, v)
        err, ok = within_tolerance(out, self.ref)
        repeats = second_call_agrees(out, f(q, k, v), self.ref, deterministic)
        sweep.report("decode", name, sweep.graph_time_us(f, self.sets), self.moved, err, ok and repeats)


def correctness(select=lambda cfg: True):
    """Checks the cases whose configuration `select` accepts; True when all of them agree."""
    ok_all = True
    cases = [  # (Hkv, S, q scale, config): the q scale spreads the scores, so the running max moves
        (8, 32768, 1.0, dac.DECODE_CUDA_CONFIG),
        (8, 32768, 8.0, dac.DECODE_CUDA_CONFIG),
        (8, 32768, 8.0, dict(warps=8, stages=2, chunks=16, order="chunk")),
        (8, 32768, 8.0, dict(warps=8, stages=2, chunks=16, order="interleaved", copy="bulk")),
        (8, 32768, 1.0, dict(warps=4, stages=3, chunks=16, order="interleaved", copy="thread-prefetch")),
        (2, 4096, 30.0, dict(warps=2, stages=3, chunks=8, order="chunk", copy="bulk")),
        (2, 4096, 1.0, dict(warps=4, stages=3, chunks=8, order="interleaved")),
        (2, 4096, 30.0, dict(warps=1, stages=4, chunks=64, order="interleaved")),
        (2, 4096, 30.0, dict(warps=2, stages=6, chunks=8, order="chunk")),
        (1, 2048, 1.0, dict(warps=8, stages=2, chunks=1, order="interleaved")),
        (8, 32768, 8.0, dict(warps=8, stages=2, chunks=16, order="staggered", combine="tagged")),
        (8, 32768, 1.0, dict(warps=4, stages=3, chunks=32, order="staggered")),
        (2, 4096, 30.0, dict(warps=2, stages=3, chunks=8, order="interleaved", combine="tagged")),
        (2, 4096, 30.0, dict(warps=1, stages=4, chunks=64, order="chunk", combine="tagged")),
        (1, 2048, 1.0, dict(warps=8, stages=2, chunks=1, order="staggered", combine="tagged")),
        (8, 32768, 8.0, dict(layout="even", warps=8, stages=2)),
        (8, 32768, 1.0, dict(layout="even", warps=4, stages=3, blocks_per_sm=2)),
        (2, 4096, 30.0, dict(layout="even", warps=4, stages=3, blocks_per_sm=2)),  # runs of ~2 tiles: idle warps
        (5, 4096, 8.0, dict(layout="even", warps=8, stages=3)),  # runs cross heads at uneven places
        (3, 8192, 1.0, dict(layout="even", warps=4, stages=4)),
        # The direct copy (tiles straight into registers): every build, odd tile counts, tiles fewer
        # than the register ring, every order and combine (the tagged ones last: a bug in them traps).
        (8, 32768, 8.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", ahead=1, blocks_per_sm=1)),
        (8, 32768, 1.0, dict(warps=4, chunks=32, order="interleaved", copy="direct", ahead=1, blocks_per_sm=2,
                             combine="ticket-release")),
        (8, 32768, 30.0, dict(warps=2, chunks=64, order="interleaved", copy="direct", ahead=1, blocks_per_sm=4)),
        (2, 4096, 30.0, dict(warps=2, chunks=8, order="chunk", copy="direct", ahead=1, blocks_per_sm=4)),
        (2, 3072, 8.0, dict(warps=4, chunks=16, order="interleaved", copy="direct", ahead=1, blocks_per_sm=2)),
        (8, 32768, 30.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=2)),
        (2, 3072, 8.0, dict(warps=4, chunks=16, order="staggered", copy="direct", chains=2, blocks_per_sm=2)),
        (2, 4096, 30.0, dict(warps=8, chunks=8, order="chunk", copy="direct", chains=4)),
        (2, 4096, 30.0, dict(warps=8, chunks=32, order="interleaved", copy="direct", ahead=1, blocks_per_sm=1,
                             combine="ticket-release")),
        (2, 4096, 30.0, dict(warps=4, chunks=4, order="staggered", copy="direct", ahead=1, blocks_per_sm=2)),
        (1, 2048, 1.0, dict(warps=8, chunks=1, order="interleaved", copy="direct", ahead=1, blocks_per_sm=1)),
        (3, 8192, 8.0, dict(warps=4, chunks=8, order="chunk", copy="direct", ahead=1, blocks_per_sm=2)),
        (8, 32768, 8.0, dict(warps=8, stages=3, chunks=16, order="interleaved", combine="ticket-release")),
        (8, 32768, 8.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", ahead=1, blocks_per_sm=1,
                             combine="tagged")),
        (2, 4096, 30.0, dict(warps=2, chunks=64, order="staggered", copy="direct", ahead=1, blocks_per_sm=4,
                             combine="tagged")),
        # Interleaved with tiles that do not divide evenly among the warps (193 tiles for 128 warps).
        (2, 3088, 30.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=2,
                             combine="ticket-release")),
        # The cluster combine (a KV head's 16 blocks one cluster, the heads that do not fit in the
        # secondary kernel): last too, since a lost partial traps.
        (8, 32768, 8.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=2, combine="cluster",
                             secondary_chunks=20)),
        (8, 5136, 30.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=4, combine="cluster",
                             secondary_chunks=20)),
        (8, 32768, 30.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=2, combine="cluster",
                              secondary_chunks=20)),
        (2, 4096, 8.0, dict(warps=8, chunks=16, order="chunk", copy="direct", chains=4, combine="cluster")),
        (3, 6144, 1.0, dict(warps=8, chunks=16, order="staggered", copy="direct", chains=4, combine="cluster")),
        (8, 32768, 30.0, dict(warps=8, chunks=16, order="staggered", copy="direct", chains=2, combine="cluster",
                              secondary_chunks=20)),
        (9, 4096, 8.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=2, combine="cluster",
                            secondary_chunks=20)),
        (1, 2048, 8.0, dict(warps=8, chunks=16, order="chunk", copy="direct", chains=2, combine="cluster")),
        # The dynamic deal (the cluster combine's later tiles from a counter): the target's shape, tiles
        # that do not divide among the warps, one fixed tile per warp (S 2048: 128 tiles, 128 warps),
        # two KV heads in the secondary.
        (8, 32768, 8.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=2, combine="cluster",
                             secondary_chunks=20, deal="dynamic")),
        (8, 5136, 30.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=4, combine="cluster",
                             secondary_chunks=20, deal="dynamic")),
        (2, 2048, 1.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=2, combine="cluster",
                            deal="dynamic")),
        (9, 6160, 8.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=4, combine="cluster",
                            secondary_chunks=20, deal="dynamic")),
        # The tail prefetch (it only moves bytes into L2, so the results must match bit for bit):
        # the target's shape, fewer keys than the prefetched tail, two KV heads in the secondary.
        (8, 32768, 8.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=2, combine="cluster",
                             secondary_chunks=20, tail_prefetch=True)),
        (2, 2064, 30.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=4, combine="cluster",
                             tail_prefetch=True)),
        (9, 6160, 1.0, dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=2, combine="cluster",
                            secondary_chunks=20, tail_prefetch=True)),
    ]
    for hkv, s, scale, cfg in (c for c in cases if select(c[3])):
        q = torch.randn(1, 4 * hkv, 1, 128, device="cuda", dtype=torch.bfloat16) * scale
        k = torch.randn(1, hkv, s, 128, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(1, hkv, s, 128, device="cuda", dtype=torch.bfloat16)
        out = dac.decode_attention_cuda(q, k, v, cfg)
        again = dac.decode_attention_cuda(q, k, v, cfg)  # the tickets were reset (or the epoch moved on)
        ref = reference(q, k, v)
        err, within = within_tolerance(out, ref)
        deterministic = cfg.get("deal") != "dynamic"
        repeats = second_call_agrees(out, again, ref, deterministic)
        ok_all &= within and repeats
        # Which way it failed: a result that changes from call to call is a race; one outside the
        # tolerance on these random inputs can be the arithmetic's precision (P rounded to bf16), which
        # bench/gpu/decode_cluster_check.py measures over many draws against the ticket kernel.
        verdict = "ok" if within and repeats else "MISMATCH (%s)" % ", ".join(
            what for what, failed in (("outside the tolerance", not within),
                                      ("differs call to call" if deterministic
                                       else "second call outside the tolerance", not repeats))
            if failed)
        print(f"check Hkv={hkv} S={s} q*{scale} {cfg}: max err {err:.3g} {verdict}", flush=True)
    return ok_all


def timing():
    run = Timing()
    sets, measure = run.sets, run.measure

    def sdpa(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    def triton_two_launch(q, k, v):
        return sweep.tk.decode_attention(q, k, v, dict(n_splits=16, BLOCK_N=128, num_warps=4, num_stages=3))

    measure("sdpa default (cuDNN)", sdpa)
    measure("triton two-launch 16x128 w4 s3", triton_two_launch)
    # The Triton kernels with the interleaved order the CUDA sweep found (the same one-line change).
    if "--triton" in sys.argv:
        for impl, name in ((sweep.tk.decode_attention, "two-launch"), (sweep.tk.decode_attention_fused, "fused")):
            for sp, bn, nw, ns in [(16, 128, 4, 3), (16, 128, 4, 2), (16, 128, 8, 3), (16, 64, 4, 3), (16, 64, 4, 4),
                                   (32, 64, 4, 3), (32, 128, 4, 3), (32, 64, 8, 3), (16, 128, 8, 2), (16, 256, 8, 2)]:
                cfg = dict(n_splits=sp, BLOCK_N=bn, num_warps=nw, num_stages=ns, interleaved=True)
                try:
                    measure("triton %s %s" % (name, json.dumps(cfg, separators=(",", ":"))),
                            lambda q, k, v, c=cfg, i=impl: i(q, k, v, c))
                except Exception as e:
                    print("decode triton", name, cfg, "failed:", str(e).splitlines()[0][:200], flush=True)
    orders = sys.argv[sys.argv.index("--orders") + 1].split(",") if "--orders" in sys.argv else ["interleaved", "chunk"]
    copies = (sys.argv[sys.argv.index("--copies") + 1].split(",") if "--copies" in sys.argv
              else sorted(set(dac._COPIES) - {"direct"}))  # direct: bench/gpu/decode_direct_sweep.py
    chunk_counts = [int(c) for c in sys.argv[sys.argv.index("--chunks") + 1].split(",")] if "--chunks" in sys.argv else [8, 16, 32, 64, 128, 256]
    configs = [dict(warps=w, stages=st, chunks=c, order=o, copy=cp)
               for cp in copies for o in orders for w, st in sorted(dac._BUILT) for c in chunk_counts
               if (S // c // w) % 16 == 0 and S // c // w >= 16 * st]
    for cfg in configs:
        try:
            measure("cuda " + json.dumps(cfg, separators=(",", ":")), lambda q, k, v, c=cfg: dac.decode_attention_cuda(q, k, v, c))
            if "--stream-phase" in sys.argv:  # how fast this shape streams K and V with no combine at all
                f = lambda q, k, v, c=cfg: dac.decode_attention_cuda(q, k, v, c, _stop_after=2)  # noqa: E731
                print(f"stream     cuda {json.dumps(cfg, separators=(',', ':')):60s} streaming loop only "
                      f"{sweep.graph_time_us(f, sets):7.2f} us", flush=True)
        except Exception as e:  # e.g. more shared memory than a block may have
            print("decode cuda", cfg, "failed:", str(e).splitlines()[0][:200], flush=True)
    measure("sdpa default (cuDNN), again", sdpa)
    # Where the time goes in the fastest configurations: the same kernel stopped after its streaming
    # loop, and stopped before the last block's combine (outputs are garbage; timing only).
    best = sorted((r for r in sweep.results if r["ok"] and r["variant"].startswith("cuda ")), key=lambda r: r["us"])[:3]
    for row in best:
        cfg = json.loads(row["variant"][len("cuda "):])
        for stop, what in ((2, "streaming loop only"), (1, "without the final combine")):
            f = lambda q, k, v, c=cfg, st=stop: dac.decode_attention_cuda(q, k, v, c, _stop_after=st)  # noqa: E731
            us = sweep.graph_time_us(f, sets)
            print(f"phases     {row['variant']:60s} {what:28s} {us:7.2f} us (full {row['us']:.2f} us)", flush=True)


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
