# SPDX-License-Identifier: Apache-2.0
"""When each warp of the cluster-combine decode attention starts, ends its stream and ends, per KV
head, for the kept candidate (static deal), the dynamic deal and the tail prefetch: where the time
between the first byte and the last output goes (a late start, warps of one head ending apart, the
secondary kernel ending after the clusters, the merge). Builds examples/decode_attention.cu with
-DHOTKERNEL_DECODE_TRACE, whose kernels write %globaltimer stamps in place of the tagged partials,
and launches the two kernels the way decode_attention_cuda does, eagerly (--eager: one call at a
time, so the secondary starts long after the clusters, which then run alone) or by CUDA graph
replay (the default; --back-to-back N: N calls in one graph on alternating inputs, as the sweeps and
verify run them, and the stamps of the last). Run on the GPU machine:
    python3 bench/gpu/decode_timeline.py [--calls 30] [--chains 2] [--eager] [--variants static,tail]
        [--back-to-back N]
Prints, per KV head, the median over the calls of: the first and last warp start, the first,
median and last stream end, and the head's last block end, in us after the first warp's start.
"""
import math
import statistics
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402,F401  (puts examples/ on the path)
import check_decode_cuda as cdc  # noqa: E402
import cuda_launch  # noqa: E402
import decode_attention_cuda as dac  # noqa: E402

WARPS, CHUNKS, SECONDARY_CHUNKS = 8, 16, 20
SHARED = (WARPS + CHUNKS - 1) * dac._WARP_RESULT_BYTES


def arg(name, default):
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


class TracedCall:
    """The kept candidate's two launches (cluster kernel, then the secondary as its programmatic
    dependent) from the traced build, each with its own stamp buffer."""

    def __init__(self, module, chains, variant, q, k):
        self.module = module
        suffix = {"static": "", "dynamic": "_dynamic", "tail": "_tail"}[variant]
        self.cluster = "decode_attention_direct_cluster16%s_w8_a1_c%d_b1" % (suffix, chains)
        self.secondary = "decode_attention_direct_secondary16_w8_a1_c%d_b1" % chains
        hkv = k.shape[1]
        self.fits = fits = min(hkv, module.max_active_clusters(self.cluster, (CHUNKS, hkv), (32 * WARPS,), SHARED,
                                                               non_portable_cluster=True))
        self.rest = rest = hkv - fits
        # Everything allocated (and zeroed: a fill kernel) once, before any launch, so that the
        # secondary's programmatic dependency is on the cluster kernel, as in decode_attention_cuda,
        # and so that graph replays write the same buffers.
        device = q.device
        self.out = torch.empty_like(q)
        self.stamps = torch.zeros(fits * CHUNKS * WARPS * 4, device=device, dtype=torch.int64)
        self.rest_stamps = torch.zeros(max(1, rest * SECONDARY_CHUNKS * WARPS * 4), device=device, dtype=torch.int64)
        self.part_acc = torch.empty(max(1, rest) * SECONDARY_CHUNKS * 4 * 128, device=device, dtype=torch.float32)
        self.part_ml = torch.empty(max(1, rest) * SECONDARY_CHUNKS * 4 * 2, device=device, dtype=torch.float32)
        self.tickets = torch.zeros(max(1, rest), device=device, dtype=torch.int32)
        self.tail_state = torch.tensor([0, hkv], device=device, dtype=torch.int32)

    def __call__(self, q, k, v):
        seq, fits, rest = k.shape[2], self.fits, self.rest
        scale_log2 = 1.0 / math.sqrt(128) * 1.4426950408889634
        self.module.launch(self.cluster, (CHUNKS, fits), (32 * WARPS,),
                           [q, k, v, q, q, self.stamps, self.tail_state, self.out, seq, scale_log2, 1, 4, 0],
                           shared_bytes=SHARED, non_portable_cluster=True)
        if rest:
            first = 4 * fits
            self.module.launch(self.secondary, (SECONDARY_CHUNKS, rest), (32 * WARPS,),
                               [q[:, first:], k[:, fits:], v[:, fits:], self.part_acc, self.part_ml, self.rest_stamps,
                                self.tickets, self.out[:, first:], seq, scale_log2, 1, 3, 0],
                               shared_bytes=WARPS * dac._WARP_RESULT_BYTES, programmatic=True)

    def read(self):
        """(out, cluster stamps [heads, chunks, warps, 4], secondary stamps) of the last call."""
        rest = self.rest
        return self.out, self.stamps.view(self.fits, CHUNKS, WARPS, 4), \
            self.rest_stamps[:rest * SECONDARY_CHUNKS * WARPS * 4].view(rest, SECONDARY_CHUNKS, WARPS, 4)


def head_rows(stamps, t0):
    """Per KV head: (first start, last start, first / median / last stream end, last end) in us after t0,
    and the tiles per warp (min, max)."""
    rows = []
    for head in stamps.tolist():
        warps = [w for block in head for w in block]
        starts = [(w[0] - t0) / 1e3 for w in warps]
        ends = sorted((w[1] - t0) / 1e3 for w in warps)
        tiles = [w[3] >> 32 for w in warps]
        rows.append((min(starts), max(starts), ends[0], ends[len(ends) // 2], ends[-1],
                     max((w[2] - t0) / 1e3 for w in warps), min(tiles), max(tiles)))
    return rows


def main():
    calls, chains, eager = arg("--calls", 30), arg("--chains", 2), "--eager" in sys.argv
    back_to_back = arg("--back-to-back", 1)
    variants = arg("--variants", "static,tail,static").split(",")
    module = cuda_launch.CudaModule(cuda_launch.compile_cubin(dac._SOURCE, None, ["-DHOTKERNEL_DECODE_TRACE"]))
    sets = sweep.rotated(lambda: (torch.randn(1, cdc.HQ, 1, cdc.D, device="cuda", dtype=torch.bfloat16),
                                  torch.randn(1, cdc.HKV, cdc.S, cdc.D, device="cuda", dtype=torch.bfloat16),
                                  torch.randn(1, cdc.HKV, cdc.S, cdc.D, device="cuda", dtype=torch.bfloat16)),
                         cdc.KV_BYTES)
    print(torch.cuda.get_device_name(0), "torch", torch.__version__, "chains", chains,
          "eager" if eager else "graph replay of %d call(s) back to back" % back_to_back, flush=True)
    for deal in variants:
        calls_by_set = [TracedCall(module, chains, deal, q, k) for q, k, v in sets]
        graphs = []
        for call, (q, k, v) in zip(calls_by_set, sets):
            call(q, k, v)  # loads the functions and sets their attributes outside the capture
            torch.cuda.synchronize()
            if not eager:  # graph n ends with a call on set n, which the stamps read are from
                graph = torch.cuda.CUDAGraph()
                first = len(graphs) - back_to_back + 1
                with torch.cuda.graph(graph):
                    for j in range(first, first + back_to_back):
                        calls_by_set[j % len(sets)](*sets[j % len(sets)])
                graphs.append(graph)
        per_call = []
        for i in range(calls + 3):
            n = i % len(sets)
            q, k, v = sets[n]
            if eager:
                calls_by_set[n](q, k, v)
            else:
                graphs[n].replay()
            torch.cuda.synchronize()
            out, stamps, rest = calls_by_set[n].read()
            if i == 0:
                err, ok = cdc.within_tolerance(out, cdc.reference(q, k, v))
                print("%s: max err %.3g %s" % (deal, err, "ok" if ok else "MISMATCH"), flush=True)
            if i < 3:
                continue  # warm-up
            t0 = stamps[..., 0].min().item()
            per_call.append(head_rows(stamps, t0) + head_rows(rest, t0))
            if i == 3:
                resolution = sorted(set(int(x) % 1000 for x in stamps[..., 1].flatten().tolist()))
                print("  globaltimer ns-in-us values seen at stream ends: %d distinct (of %d)"
                      % (len(resolution), stamps[..., 1].numel()), flush=True)
        print("%s, median over %d calls (us after the first warp's start):" % (deal, calls), flush=True)
        print("  head  kernel     start first/last  stream end first/median/last  end last  tiles/warp", flush=True)
        heads = len(per_call[0])
        fits = stamps.shape[0]
        for h in range(heads):
            med = [statistics.median(c[h][x] for c in per_call) for x in range(8)]
            print("  %4d  %-9s  %6.2f %6.2f        %6.2f %6.2f %6.2f          %6.2f    %d-%d" % (
                h, "cluster" if h < fits else "secondary", *med[:6], med[6], med[7]), flush=True)
        last_end = [max(r[5] for r in c) for c in per_call]
        last_stream = [max(r[4] for r in c) for c in per_call]
        print("  whole call: last stream end %.2f, last end %.2f us (median); last end min %.2f max %.2f" % (
            statistics.median(last_stream), statistics.median(last_end), min(last_end), max(last_end)), flush=True)


if __name__ == "__main__":
    main()
