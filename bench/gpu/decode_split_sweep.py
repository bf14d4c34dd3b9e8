# SPDX-License-Identifier: Apache-2.0
"""Sweeps the Triton decode kernels with many splits (256 to 1024 programs, several per SM) next to
cuDNN SDPA and the kept candidate, timed by graph replay in one run. The streaming probe
(bench/gpu/results/decode-probe-2026-12-02-2258.txt) read K and V at the gemv's rate (31.5 us) only
with 512 or more programs of 4 warps; a one-wave grid of 128 programs took 48 us. Run on the GPU
machine: python3 bench/gpu/decode_split_sweep.py [--out FILE.json] [--early-combine]
--early-combine sweeps instead the one-wave shapes with the combine kernel launched as a
programmatic dependent of the split kernel (the `early_combine` option), with and without it.
"""
import json
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402
import check_decode_cuda as cdc  # noqa: E402
import decode_cuda_variants as dcv  # noqa: E402


def main():
    print(torch.cuda.get_device_name(0), "torch", torch.__version__, flush=True)
    run = cdc.Timing()

    def save():
        if "--out" in sys.argv:
            with open(sys.argv[sys.argv.index("--out") + 1], "w") as fh:
                json.dump(sweep.results, fh, indent=1)

    def measure(name, f):
        try:
            run.measure(name, f)
        except Exception as e:  # e.g. more shared memory than a program may have
            print("decode", name, "failed:", str(e).splitlines()[0][:200], flush=True)
            return
        save()

    measure("sdpa default (cuDNN)", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
    measure(dcv.KEPT_ROW, dcv.kept_candidate_fn())
    if "--early-combine" in sys.argv:
        for sp, bn, nw, ns in [(16, 128, 4, 3), (16, 64, 4, 3), (16, 128, 8, 3), (32, 64, 4, 3), (32, 64, 2, 3),
                               (32, 128, 4, 3), (16, 128, 4, 2)]:
            for early in (True, False):
                cfg = dict(n_splits=sp, BLOCK_N=bn, num_warps=nw, num_stages=ns, interleaved=True, early_combine=early)
                measure("triton two-launch %s" % json.dumps(cfg, separators=(",", ":")),
                        lambda q, k, v, c=cfg: sweep.tk.decode_attention(q, k, v, c))
        measure("sdpa default (cuDNN), again", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
        measure(dcv.KEPT_ROW + ", again", dcv.kept_candidate_fn())
        return
    shapes = [(64, 64, 4, 3), (64, 64, 4, 2), (64, 64, 4, 4), (64, 32, 4, 3), (64, 64, 2, 3), (64, 128, 4, 3),
              (64, 64, 8, 3), (128, 32, 4, 3), (128, 64, 4, 3), (128, 32, 2, 3), (128, 32, 4, 4), (32, 128, 4, 3),
              (32, 64, 2, 3), (256, 32, 4, 3)]
    for impl, name in ((sweep.tk.decode_attention, "two-launch"), (sweep.tk.decode_attention_fused, "fused")):
        for sp, bn, nw, ns in shapes if name == "two-launch" else shapes[:4] + shapes[7:9]:
            cfg = dict(n_splits=sp, BLOCK_N=bn, num_warps=nw, num_stages=ns, interleaved=True)
            measure("triton %s %s" % (name, json.dumps(cfg, separators=(",", ":"))), lambda q, k, v, c=cfg, i=impl: i(q, k, v, c))
    for sp, bn, nw, ns in shapes[:1] + shapes[7:8]:
        cfg = dict(n_splits=sp, BLOCK_N=bn, num_warps=nw, num_stages=ns, interleaved=True, stagger=True)
        measure("triton two-launch %s" % json.dumps(cfg, separators=(",", ":")), lambda q, k, v, c=cfg: sweep.tk.decode_attention(q, k, v, c))
    measure("sdpa default (cuDNN), again", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
    rows = sorted((r for r in sweep.results if r["ok"] and r["variant"].startswith("triton")), key=lambda r: r["us"])[:6]
    print("fastest:", *("%s %.2f us" % (r["variant"], r["us"]) for r in rows), sep="\n  ")


if __name__ == "__main__":
    main()
