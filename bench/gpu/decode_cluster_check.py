# SPDX-License-Identifier: Apache-2.0
"""Runs the cluster combine's correctness cases (examples/decode_attention.cu, combine "cluster" with
its secondary kernel) many times on fresh random inputs, and tells the two ways a case can fail
apart: a result that differs from call to call on the same inputs (a race), or one outside the
target's tolerance (precision). The one-launch ticket kernel runs on the same inputs as the control.
One such case (9 KV heads, two of them in the secondary) failed once in
bench/gpu/results/decode_direct_sweep-2026-12-03-1159.txt. Run on the GPU machine:
    python3 bench/gpu/decode_cluster_check.py [--out FILE.json] [--trials N]
"""
import json
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402, F401  (puts examples/ on the path)
import check_decode_cuda as cdc  # noqa: E402
import decode_attention_cuda as dac  # noqa: E402

# The kept candidate's configuration (since 14:32 UTC on 2026-12-03: 4 chains, the tail prefetch;
# decode_cluster_check-2026-12-03-1230.txt ran 2 chains without it) and the ticket kernel with the
# same arithmetic.
CLUSTER = dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=4, combine="cluster",
               secondary_chunks=20, tail_prefetch=True)
TICKET = dict(warps=8, chunks=16, order="interleaved", copy="direct", chains=4, combine="ticket-release")
CASES = [(9, 4096, 8.0), (8, 32768, 8.0), (2, 4096, 30.0), (8, 5136, 30.0)]  # (Hkv, S, q scale)


def main():
    trials = int(sys.argv[sys.argv.index("--trials") + 1]) if "--trials" in sys.argv else 12
    print(torch.cuda.get_device_name(0), "torch", torch.__version__, flush=True)
    rows = []
    for hkv, seq, scale in CASES:
        counts = {"cluster": [0, 0, -1e9], "ticket": [0, 0, -1e9]}  # [calls that differ, out of tolerance, worst]
        for _ in range(trials):
            q = torch.randn(1, 4 * hkv, 1, 128, device="cuda", dtype=torch.bfloat16) * scale
            k = torch.randn(1, hkv, seq, 128, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(1, hkv, seq, 128, device="cuda", dtype=torch.bfloat16)
            ref = cdc.reference(q, k, v)
            for name, cfg in (("cluster", CLUSTER), ("ticket", TICKET)):
                outs = [dac.decode_attention_cuda(q, k, v, cfg) for _ in range(3)]
                counts[name][0] += not all(torch.equal(outs[0], o) for o in outs[1:])
                _, worst = cdc.tolerance_excess(outs[0], ref)
                counts[name][1] += worst > 0
                counts[name][2] = max(counts[name][2], worst)
        for name, (differ, outside, worst) in counts.items():
            line = ("%s Hkv=%d S=%d q*%g: %d of %d trials differ call to call, %d outside the tolerance "
                    "(worst excess %.3g)" % (name, hkv, seq, scale, differ, trials, outside, worst))
            print(line, flush=True)
            rows.append(dict(variant=line, ok=differ == 0 and outside == 0, us=0.0))
    if "--out" in sys.argv:
        with open(sys.argv[sys.argv.index("--out") + 1], "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
