# SPDX-License-Identifier: Apache-2.0
"""Writes the decode_attention variants of the CUDA C++ kernel for examples_loop.py from a
check_decode_cuda.py result: variant NN for the fastest correct configuration, NN+1 for the next.
    python3 bench/gpu/decode_cuda_variants.py SWEEP.json [--first 04]
The configuration is measured, not guessed, so the variants are written on the GPU machine right
after the sweep; they come back with the results and are committed beside the others."""
import json
import os
import sys

VARIANTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "variants")
WHO = "agent: Claude (hotkernel developer session), CUDA C++ written by hand"
KERNEL = ("CUDA C++ split-KV decode (examples/decode_attention.cu): one launch, the last block of a KV head "
          "combines its chunks; per-warp cp.async pipelines of 16-key K and V tiles; Q K^T and P V on tensor "
          "cores (mma.sync m16n8k16, the 4 query heads as rows, scores kept in registers as P's fragment)")

TEMPLATE = '''# SPDX-License-Identifier: Apache-2.0
"""Candidate for target decode_attention: {note}"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from decode_attention_baseline import TARGET

import decode_attention_cuda


def fn(q, k, v):
    return decode_attention_cuda.decode_attention_cuda(q, k, v, {config})


if __name__ == "__main__":
    main(TARGET, fn)
'''


def main():
    rows = json.load(open(sys.argv[1]))
    first = int(sys.argv[sys.argv.index("--first") + 1]) if "--first" in sys.argv else 4
    cuda = sorted((r for r in rows if r["ok"] and r["variant"].startswith("cuda ")), key=lambda r: r["us"])
    if not cuda:
        sys.exit("decode_cuda_variants: no correct CUDA configuration in %s" % sys.argv[1])
    for number, row in zip(range(first, first + 2), cuda[:2]):
        cfg = json.loads(row["variant"][len("cuda "):])
        shape = "%d warps x %d stages, %d chunks per KV head" % (cfg["warps"], cfg["stages"], cfg["chunks"])
        note = "%s; %s (%.2f us in the sweep)" % (KERNEL, shape, row["us"])
        stem = os.path.join(VARIANTS, "decode_attention__%02d-cuda-w%ds%dc%d" % (number, cfg["warps"], cfg["stages"], cfg["chunks"]))
        config = "dict(warps=%d, stages=%d, chunks=%d)" % (cfg["warps"], cfg["stages"], cfg["chunks"])
        with open(stem + ".py", "w") as fh:
            fh.write(TEMPLATE.format(note=note, config=config))
        with open(stem + ".note", "w") as fh:
            fh.write(note + "\n")
        with open(stem + ".who", "w") as fh:
            fh.write(WHO + "\n")
        print("wrote", stem + ".py", "-", shape, flush=True)


if __name__ == "__main__":
    main()
