# SPDX-License-Identifier: Apache-2.0
"""Writes decode_attention variants for examples_loop.py from a check_decode_cuda.py result:
variant NN for the fastest correct configuration (CUDA C++, or Triton in the interleaved order),
NN+1 for the next.
    python3 bench/gpu/decode_cuda_variants.py SWEEP.json [--first 04] [--only-if-faster]
--only-if-faster writes nothing unless the fastest configuration beats the kept candidate's best
timing in the same sweep (the keep-or-revert step, before spending verifies on it).
The configuration is measured, not guessed, so the variants are written on the GPU machine right
after the sweep; they come back with the results and are committed beside the others."""
import json
import os
import sys

VARIANTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "variants")
CURRENT = "triton two-launch 16x128 w4 s3"  # the kept candidate's row in sweeps before 23:00 on 2026-12-02
KEPT_ROW = "kept candidate"  # its row since: examples/decode_attention_candidate.py as it stands
CANDIDATE = os.path.join(os.path.dirname(VARIANTS), "..", "..", "examples", "decode_attention_candidate.py")


def kept_candidate_fn():
    """The kept candidate's fn, built from the return line of examples/decode_attention_candidate.py
    (importing the script itself would hand its stdout to the measurement contract)."""
    import decode_attention_cuda
    import tuned_kernels
    returns = [line.strip() for line in open(CANDIDATE) if line.strip().startswith("return ")]
    if len(returns) != 1:
        sys.exit("decode_cuda_variants: %s has %d return lines, not one" % (CANDIDATE, len(returns)))
    scope = {"tuned_kernels": tuned_kernels, "decode_attention_cuda": decode_attention_cuda}
    exec("def fn(q, k, v):\n    " + returns[0], scope)
    return scope["fn"]
CUDA_WHO = "agent: Claude (hotkernel developer session), CUDA C++ written by hand"
TRITON_WHO = "agent: Claude (hotkernel developer session), Triton written by hand"
CUDA_KERNEL = ("CUDA C++ split-KV decode (examples/decode_attention.cu): one launch, the last block of a KV head "
               "combines its chunks; per-warp cp.async pipelines of 16-key K and V tiles; Q K^T and P V on tensor "
               "cores (mma.sync m16n8k16, the 4 query heads as rows, scores kept in registers as P's fragment)")
CUDA_KERNEL_EVEN = ("CUDA C++ decode (examples/decode_attention.cu, layout even): one launch; per-warp cp.async "
                    "pipelines of 16-key K and V tiles; Q K^T and P V on tensor cores (mma.sync m16n8k16)")
INTERLEAVED_WORDS = "interleaved tiles (step j of all blocks of a KV head reads one contiguous window)"
ORDER_WORDS = {"chunk": "each block one run of consecutive keys", "interleaved": INTERLEAVED_WORDS,
               "staggered": INTERLEAVED_WORDS + ", KV head h starting h/8 of the way along its keys"}
COMBINE_WORDS = {"ticket": "the last block to take a ticket combines",
                 "ticket-release": "the last block to take a ticket (one acq_rel atomic per block) combines",
                 "tagged": "values tagged with the call's epoch, the head's last block polls for them (no fence, no ticket)",
                 "cluster": ("a KV head's 16 blocks are one thread block cluster and send their partials into its "
                             "first block's shared memory (st.async counted on an mbarrier), which combines them: no "
                             "global memory, fence or ticket on the tail; the heads beyond the clusters that fit at "
                             "once (7 clusters of 16 blocks on the H200) in a second kernel of %d blocks per head on "
                             "the SMs left over, a programmatic dependent launch that waits for the first before it "
                             "exits, the last block to take a ticket combines")}
COPY_WORDS = {"thread": "cp.async 16 bytes per thread",
              "thread-prefetch": "cp.async 16 bytes per thread with a 256-byte L2 prefetch",
              "bulk": "cp.async.bulk (TMA) one row per lane, completion counted on an mbarrier"}
DYNAMIC_WORDS = ("in the clusters each warp's first 8 tiles fixed, the rest dealt one at a time from a counter in "
                 "the cluster's first block (a distributed shared memory atomic, asked a tile ahead), so that a KV "
                 "head's warps end together")
TAIL_WORDS = ("each cluster warp that has ended its stream has the L2 prefetch a 16 KiB piece of the last 4096 keys "
              "of every KV head (cp.async.bulk.prefetch, pieces in the order the warps reached their last tile), so "
              "that the warps still streaming find their last tiles in L2")
CUDA_KERNEL_DIRECT = ("CUDA C++ split-KV decode (examples/decode_attention.cu, copy direct): one launch; every lane loads 16-byte pieces of K and V "
                      "straight into its mma fragments' registers (dims and keys permuted alike in Q, K, V, P and the "
                      "output; V paired by byte permutes), no shared memory in the streaming loop; Q K^T and "
                      "O^T = V^T P^T on tensor cores (mma.sync m16n8k16)")

TEMPLATE = '''# SPDX-License-Identifier: Apache-2.0
"""Candidate for target decode_attention: {note}"""
from _hotkernel_contract import main  # first: keeps stdout for the protocol
from decode_attention_baseline import TARGET

import {module}


def fn(q, k, v):
    return {call}(q, k, v, {config})


if __name__ == "__main__":
    main(TARGET, fn)
'''


def describe(row):
    """(file stem suffix, note, module, call, config source, who) of one sweep row."""
    name, cfg_text = row["variant"].split(" {", 1)
    cfg = json.loads("{" + cfg_text)
    if name == "cuda" and cfg.get("layout") == "even":
        per_sm = cfg.get("blocks_per_sm", 1)
        shape = ("%d warps x %d stages, %d block(s) per SM, all KV heads' keys cut into equal runs (no idle SM), "
                 "%s" % (cfg["warps"], cfg["stages"], per_sm, COMBINE_WORDS["tagged"]))
        stem = "cuda-even-w%ds%d-%dpersm" % (cfg["warps"], cfg["stages"], per_sm)
        config = "dict(layout='even', warps=%d, stages=%d, blocks_per_sm=%d)" % (cfg["warps"], cfg["stages"], per_sm)
        return stem, "%s; %s" % (CUDA_KERNEL_EVEN, shape), "decode_attention_cuda", \
            "decode_attention_cuda.decode_attention_cuda", config, CUDA_WHO
    if name == "cuda" and cfg.get("copy") == "direct":
        order, combine = cfg.get("order", "chunk"), cfg.get("combine", "ticket")
        ahead, chains, per_sm = cfg.get("ahead", 1), cfg.get("chains", 1), cfg.get("blocks_per_sm", 1)
        secondary = cfg.get("secondary_chunks", cfg["chunks"])
        combine_words = COMBINE_WORDS[combine] % secondary if combine == "cluster" else COMBINE_WORDS[combine]
        dynamic = cfg.get("deal", "static") == "dynamic"
        tail = bool(cfg.get("tail_prefetch"))
        if dynamic:
            combine_words += "; " + DYNAMIC_WORDS
        if tail:
            combine_words += "; " + TAIL_WORDS
        shape = ("%d warps, %d tile(s) of 16 keys and values in flight per warp beside the one in use, %d chain(s) of "
                 "mma per score fragment, %d chunks per KV head (%d block(s) per SM), %s, %s" % (
                     cfg["warps"], ahead, chains, cfg["chunks"], per_sm, ORDER_WORDS[order], combine_words))
        stem = "cuda-direct-w%da%dx%dc%d%s-%s%s%s" % (cfg["warps"], ahead, chains, cfg["chunks"],
                                                     "" if order == "chunk" else "-" + order, combine,
                                                     "%d" % secondary if combine == "cluster" else "",
                                                     "-dynamic" if dynamic else "-tail" if tail else "")
        config = ("dict(warps=%d, chunks=%d, order=%r, copy='direct', ahead=%d, chains=%d, blocks_per_sm=%d, "
                  "combine=%r%s%s)" % (cfg["warps"], cfg["chunks"], order, ahead, chains, per_sm, combine,
                                       ", secondary_chunks=%d" % secondary if combine == "cluster" else "",
                                       ", deal='dynamic'" if dynamic else ", tail_prefetch=True" if tail else ""))
        kernel = (CUDA_KERNEL_DIRECT.replace("one launch", "two launches (see the combine)") if combine == "cluster"
                  else CUDA_KERNEL_DIRECT)
        return stem, "%s; %s" % (kernel, shape), "decode_attention_cuda", \
            "decode_attention_cuda.decode_attention_cuda", config, CUDA_WHO
    if name == "cuda":
        order, copy, combine = cfg.get("order", "chunk"), cfg.get("copy", "thread"), cfg.get("combine", "ticket")
        shape = "%d warps x %d stages, %d chunks per KV head, %s, %s, %s" % (
            cfg["warps"], cfg["stages"], cfg["chunks"], ORDER_WORDS[order], COPY_WORDS[copy], COMBINE_WORDS[combine])
        stem = "cuda-w%ds%dc%d%s-%s%s" % (cfg["warps"], cfg["stages"], cfg["chunks"],
                                          "" if order == "chunk" else "-" + order, copy,
                                          "-tagged" if combine == "tagged" else "")
        config = "dict(warps=%d, stages=%d, chunks=%d, order=%r, copy=%r, combine=%r)" % (
            cfg["warps"], cfg["stages"], cfg["chunks"], order, copy, combine)
        return stem, "%s; %s" % (CUDA_KERNEL, shape), "decode_attention_cuda", \
            "decode_attention_cuda.decode_attention_cuda", config, CUDA_WHO
    fused = name == "triton fused"
    what = ("Triton one launch (the last program of a KV head combines its splits)" if fused
            else "Triton split-KV + combine kernel")
    stagger, early = bool(cfg.get("stagger")), bool(cfg.get("early_combine"))
    shape = "%d splits, %d keys per step, %d warps, %d stages, %s%s%s" % (
        cfg["n_splits"], cfg["BLOCK_N"], cfg["num_warps"], cfg["num_stages"],
        INTERLEAVED_WORDS if cfg.get("interleaved") else "each split one run of consecutive keys",
        ", KV head h starting h/8 of the way along its keys" if stagger else "",
        ", the combine kernel launched as a programmatic dependent of the split kernel (resident before the "
        "splits end; the next call still waits for this one)" if early else "")
    stem = "triton-%s-%dx%d-w%ds%d%s%s%s" % ("fused" if fused else "split", cfg["n_splits"], cfg["BLOCK_N"],
                                              cfg["num_warps"], cfg["num_stages"],
                                              "-interleaved" if cfg.get("interleaved") else "",
                                              "-staggered" if stagger else "", "-early-combine" if early else "")
    config = "dict(n_splits=%d, BLOCK_N=%d, num_warps=%d, num_stages=%d, interleaved=%r, stagger=%r%s)" % (
        cfg["n_splits"], cfg["BLOCK_N"], cfg["num_warps"], cfg["num_stages"], bool(cfg.get("interleaved")), stagger,
        ", early_combine=True" if early else "")
    return stem, "%s; %s" % (what, shape), "tuned_kernels", \
        "tuned_kernels.decode_attention_fused" if fused else "tuned_kernels.decode_attention", config, TRITON_WHO


def main():
    rows = json.load(open(sys.argv[1]))
    first = int(sys.argv[sys.argv.index("--first") + 1]) if "--first" in sys.argv else 4
    tried = sorted((r for r in rows if r["ok"] and " {" in r["variant"]), key=lambda r: r["us"])
    if not tried:
        sys.exit("decode_cuda_variants: no correct configuration in %s" % sys.argv[1])
    # Every timing of the kept candidate in the sweep ("kept candidate", ", again", ", third"): a
    # configuration must beat its best to earn verifies.
    current = ([r["us"] for r in rows if r["variant"].startswith(KEPT_ROW)]
               or [r["us"] for r in rows if r["variant"] == CURRENT])
    if "--only-if-faster" in sys.argv and current and tried[0]["us"] >= min(current):
        sys.exit("decode_cuda_variants: the fastest configuration (%s, %.2f us) does not beat the kept candidate "
                 "(%.2f us) in the same sweep; no variants written" % (tried[0]["variant"], tried[0]["us"], min(current)))
    # The two fastest distinct configurations: a sweep that measures one in several rounds lists it
    # several times (variants 27 and 28 were the same configuration, verified twice).
    distinct = [row for i, row in enumerate(tried) if row["variant"] not in [r["variant"] for r in tried[:i]]]
    for number, row in zip(range(first, first + 2), distinct[:2]):
        stem, note, module, call, config, who = describe(row)
        note = "%s (%.2f us in the sweep)" % (note, row["us"])
        path = os.path.join(VARIANTS, "decode_attention__%02d-%s" % (number, stem))
        with open(path + ".py", "w") as fh:
            fh.write(TEMPLATE.format(note=note, module=module, call=call, config=config))
        with open(path + ".note", "w") as fh:
            fh.write(note + "\n")
        with open(path + ".who", "w") as fh:
            fh.write(who + "\n")
        print("wrote", path + ".py", "-", note, flush=True)


if __name__ == "__main__":
    main()
