# SPDX-License-Identifier: Apache-2.0
"""Checks and sweeps the CUDA decode attention with the direct copy (examples/decode_attention.cu:
tiles loaded straight into the mma fragments' registers, no shared memory in the streaming loop)
next to cuDNN SDPA and the kept candidate (the first shape also stopped after each phase), all
timed by graph replay in one run so that the ratios compare. The cp.async kernel streamed K and V no faster than
33.3 us with its copies alone, while plain register loads did it in 31.4 us in the streaming probe
(bench/gpu/results/decode-probe-2026-12-02-2258.txt). Run on the GPU machine:
    python3 bench/gpu/decode_direct_sweep.py [--out FILE.json]
"""
import json
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402
import check_decode_cuda as cdc  # noqa: E402
import decode_cuda_variants as dcv  # noqa: E402
import decode_attention_cuda as dac  # noqa: E402  (sweep put examples/ on the path)

# (warps, chains, blocks_per_sm, chunks): chunks x Hkv blocks fill the SMs' slots in one wave; the
# first is also stopped after each phase. What lost is in the sweeps' results
# (decode_direct_sweep-2026-12-03-*.txt): two warps per block, 41.5-52.3 us; the tagged combine,
# 35.8-49.3; a row of blocks that merged the partials as they were published, 37.3-39.7; 33 chunks of
# 4 warps with the keys left over cut into short tiles, so that all 132 SMs stream, 37.4 (copies
# alone 32.66 us against 32.00 for 16 chunks of 8 warps); every KV head as one thread block cluster
# (the combine below, with no second kernel): 16-block clusters do not fit all 8 heads at once (7
# do), and 8 chunks of 8-block clusters stream from 64 SMs only, 47.6-47.9 us; against 34.8-36.4 us
# for these.
SHAPES = [(8, 4, 1, 16), (8, 2, 1, 16)]
# The cluster combine for the heads whose 16-block clusters fit at once (7 on the H200), the rest in
# a secondary kernel of this many blocks per head on the SMs the clusters leave (20 there; 16 and 18
# measured 35.92 and 34.78 us against 34.15, decode_direct_sweep-2026-12-03-1130.txt). The kept
# candidate is (8, 4, 1, 16, 20) with the tail prefetch (before 14:32 UTC on 2026-12-03: (8, 2, 1,
# 16, 20) without it). Measured and dropped: the staggered order, 35.22-35.37 us against
# 34.98-35.04 (...-1155.txt); two lanes merging each output in the cluster, 35.11-35.13 against
# 34.84-34.85 for one, alternating in one sweep (...-1159.txt).
CLUSTER_SHAPES = [(8, 4, 1, 16, 20)]
# Against the kept candidate, alternating, three rounds: (warps, chains, blocks_per_sm, chunks,
# secondary_chunks, options). The dynamic deal (each cluster warp's later tiles from a counter) lost:
# 34.73-34.91 us against 34.32-34.74 (decode_direct_sweep-2026-12-03-1405.txt). The tail prefetch
# won: 33.73-33.94 us against 34.10-34.68 without it (...-1431.txt), and was kept.
ROUND_SHAPES = [(8, 2, 1, 16, 20, dict(tail_prefetch=True)), (8, 4, 1, 16, 20, dict(tail_prefetch=True)),
                (8, 4, 1, 16, 20, None)]
ORDERS = ("staggered", "interleaved")
PHASES = ((3, "copies only"), (2, "streaming loop only"), (1, "without the final combine"))


def config(warps, chains, per_sm, chunks, order="interleaved", combine="ticket"):
    return dict(warps=warps, chunks=chunks, order=order, copy="direct", chains=chains, blocks_per_sm=per_sm,
                combine=combine)


def cluster_config(warps, chains, per_sm, chunks, secondary_chunks, options=None):
    return dict(config(warps, chains, per_sm, chunks, combine="cluster"), secondary_chunks=secondary_chunks,
                **(options or {}))


def main():
    print(torch.cuda.get_device_name(0), "torch", torch.__version__, flush=True)
    good = cdc.correctness(lambda cfg: cfg.get("copy") == "direct" and cfg.get("combine") != "tagged")
    run = cdc.Timing()

    def save():  # after every row: a later one that fails (a trap, a timeout) loses only itself
        if "--out" in sys.argv:
            with open(sys.argv[sys.argv.index("--out") + 1], "w") as fh:
                json.dump(sweep.results, fh, indent=1)

    def measure(name, f, deterministic=True):
        run.measure(name, f, deterministic)
        save()

    def measure_cuda(cfg, phases=True):
        label = "cuda " + json.dumps(cfg, separators=(",", ":"))
        measure(label, lambda q, k, v, c=cfg: dac.decode_attention_cuda(q, k, v, c), cfg.get("deal") != "dynamic")
        for stop, what in PHASES if phases else ():
            f = lambda q, k, v, c=cfg, st=stop: dac.decode_attention_cuda(q, k, v, c, _stop_after=st)  # noqa: E731
            print(f"phases   {label:64s} {what:26s} {sweep.graph_time_us(f, run.sets):7.2f} us", flush=True)

    sdpa = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)  # noqa: E731
    measure("sdpa default (cuDNN)", sdpa)
    measure(dcv.KEPT_ROW, dcv.kept_candidate_fn())
    for shape in CLUSTER_SHAPES:  # (phases of two kernels, one of them a programmatic dependent, say little)
        measure_cuda(cluster_config(*shape), phases=False)
    print("cluster combine: %s clusters of 16 blocks fit at once" % sorted(set(dac._clusters_fit.values())), flush=True)
    if "--ticket" in sys.argv:  # the one-launch kernels (measured in every sweep until 12:00 on 2026-12-03)
        for i, shape in enumerate(SHAPES):
            for order in ORDERS:
                measure_cuda(config(*shape, order=order, combine="ticket-release"),
                             phases=i == 0 and order == ORDERS[0])
    for suffix in (", again", ", third"):  # rows of the same label are rounds, in the order printed
        for shape in ROUND_SHAPES:
            measure_cuda(cluster_config(*shape), phases=False)
        measure(dcv.KEPT_ROW + suffix, dcv.kept_candidate_fn())
        measure("sdpa default (cuDNN)" + suffix, sdpa)
    rows = sorted((r for r in sweep.results if r["ok"]), key=lambda r: r["us"])[:6]
    print("fastest:", *("%s %.2f us" % (r["variant"], r["us"]) for r in rows), sep="\n  ")
    if not good or not all(r["ok"] for r in sweep.results):
        sys.exit("decode_direct_sweep: a kernel disagrees with the reference (or with itself, call to call)")


if __name__ == "__main__":
    main()
