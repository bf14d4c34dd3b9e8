# SPDX-License-Identifier: Apache-2.0
"""Where decode attention's streaming time goes: how fast K and V (2 x 64 MiB) can be read at all in
each access order, against the gemv candidate's single 128 MiB stream, and what the stagger option
does to the real kernels. All timed by graph replay in one run, so that the ratios compare.

Probes read K and V tile by tile exactly as a decode kernel would, with no attention arithmetic
(a multiply-add per element keeps the loads alive):
  head/interleaved   grid (Hkv, splits): step j of all splits of a KV head reads one window
                     (16 windows at once: 8 heads x K and V, all at the same offset of their regions)
  head/staggered     the same, KV head h starting h/Hkv of the way along its keys
  head/chunk         each program walks its own run of keys (Hkv x splits x 2 streams)
  sweep/P            P programs walk all tiles of all heads in order, tile t = j P + p: the whole
                     grid reads one window of K and one of V, and P can be any multiple of the SMs
Run on the GPU machine: python3 bench/gpu/decode_stream_probe.py [--out FILE.json]
"""
import ctypes
import json
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402
import check_decode_cuda as cdc  # noqa: E402
import cuda_launch  # noqa: E402  (sweep put examples/ on the path)
import decode_attention_cuda as dac  # noqa: E402
from check_decode_cuda import HKV, S, D, KV_BYTES  # noqa: E402


@triton.jit
def _probe_head_kernel(k_ptr, v_ptr, out_ptr, seq_len, chunk, head_rotation, BLOCK_N: tl.constexpr,
                       D: tl.constexpr, INTERLEAVED: tl.constexpr):
    kv_head, split, n_splits = tl.program_id(0), tl.program_id(1), tl.num_programs(1)
    d = tl.arange(0, D)
    base = kv_head.to(tl.int64) * seq_len * D
    acc = tl.zeros((BLOCK_N, D), dtype=tl.float32)
    steps = chunk // BLOCK_N
    for i in range(0, steps):
        j = (i + kv_head * head_rotation) % steps
        if INTERLEAVED:
            n = (j * n_splits + split) * BLOCK_N
        else:
            n = split * chunk + j * BLOCK_N
        offs = (n + tl.arange(0, BLOCK_N)).to(tl.int64)
        k = tl.load(k_ptr + base + offs[:, None] * D + d[None, :], eviction_policy="evict_first")
        v = tl.load(v_ptr + base + offs[:, None] * D + d[None, :], eviction_policy="evict_first")
        acc += k.to(tl.float32) * v.to(tl.float32)
    tl.store(out_ptr + kv_head * n_splits + split, tl.sum(tl.sum(acc, axis=1), axis=0))


@triton.jit
def _probe_sweep_kernel(k_ptr, v_ptr, out_ptr, n_tiles, BLOCK_N: tl.constexpr, D: tl.constexpr):
    p, n_programs = tl.program_id(0), tl.num_programs(0)
    rows = tl.arange(0, BLOCK_N)
    d = tl.arange(0, D)
    acc = tl.zeros((BLOCK_N, D), dtype=tl.float32)
    for t in range(p, n_tiles, n_programs):
        offs = (t.to(tl.int64) * BLOCK_N + rows)[:, None] * D + d[None, :]
        k = tl.load(k_ptr + offs, eviction_policy="evict_first")
        v = tl.load(v_ptr + offs, eviction_policy="evict_first")
        acc += k.to(tl.float32) * v.to(tl.float32)
    tl.store(out_ptr + p, tl.sum(tl.sum(acc, axis=1), axis=0))


def probe_head(order, splits, block_n, warps, stages):
    steps = S // splits // block_n
    rotation = steps // HKV if order == "staggered" else 0
    out = torch.empty(HKV * splits, device="cuda", dtype=torch.float32)

    def run(q, k, v):
        _probe_head_kernel[(HKV, splits)](k, v, out, S, S // splits, rotation, BLOCK_N=block_n, D=D,
                                          INTERLEAVED=order != "chunk", num_warps=warps, num_stages=stages)
        return out
    return run


def probe_sweep(programs, block_n, warps, stages):
    out = torch.empty(programs, device="cuda", dtype=torch.float32)

    def run(q, k, v):
        _probe_sweep_kernel[(programs,)](k, v, out, HKV * S // block_n, BLOCK_N=block_n, D=D,
                                         num_warps=warps, num_stages=stages)
        return out
    return run


class _ClusterDim(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint), ("pad", ctypes.c_char * 52)]


class _LaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", _ClusterDim)]


class _LaunchConfig(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.POINTER(_LaunchAttribute)), ("n_attrs", ctypes.c_uint)]


def max_active_clusters(name, warps, shared_bytes, cluster):
    """How many clusters of `cluster` blocks of this CUDA decode kernel the card can hold at once (the
    GPCs bound it: a cluster lives in one). Tells whether a cluster per KV head could combine over
    distributed shared memory in one wave."""
    driver = cuda_launch._cuda()
    function = dac._module().function(name)
    _CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, _CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 14, 4
    driver.cuFuncSetAttribute(function, 8, shared_bytes)
    if cluster > 8:
        driver.cuFuncSetAttribute(function, _CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
    attr = _LaunchAttribute(id=_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, value=_ClusterDim(x=cluster, y=1, z=1))
    config = _LaunchConfig(grid=(ctypes.c_uint * 3)(16, HKV, 1), block=(ctypes.c_uint * 3)(32 * warps, 1, 1),
                           shared=shared_bytes, stream=None, attrs=ctypes.pointer(attr), n_attrs=1)
    count = ctypes.c_int(-1)
    status = driver.cuOccupancyMaxActiveClusters(ctypes.byref(count), function, ctypes.byref(config))
    return count.value if status == 0 else "error %d" % status


def timed(sets, kind, name, f):
    us = sweep.graph_time_us(f, sets)
    gbs = KV_BYTES / (us * 1e-6) / 1e9
    sweep.results.append(dict(kernel=kind, variant=name, us=round(us, 2), gbs=round(gbs), ok=True))
    print(f"{kind:8s} {name:64s} {us:8.2f} us {gbs:6.0f} GB/s", flush=True)


def main():
    print(torch.cuda.get_device_name(0), "torch", torch.__version__, "triton", triton.__version__,
          "SMs", torch.cuda.get_device_properties(0).multi_processor_count, flush=True)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    def tagged(cfg):
        return cfg.get("combine") == "tagged" and cfg.get("layout", "per-head") == "per-head"

    def even(cfg):
        return cfg.get("layout") == "even"

    good = cdc.correctness(lambda cfg: not tagged(cfg) and not even(cfg))
    run = cdc.Timing()
    sets, measure = run.sets, run.measure

    # The single-stream reference: the gemv candidate reads one 128 MiB matrix.
    wsets = sweep.rotated(lambda: (torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16),
                                   torch.randn(8192, device="cuda", dtype=torch.bfloat16)), 8192 * 8192 * 2)
    us = sweep.graph_time_us(lambda w, x: sweep.tk.gemv(w, x), wsets)
    print(f"{'gemv':8s} {'candidate (one 128 MiB stream)':64s} {us:8.2f} us {8192 * 8192 * 2 / us / 1e3:6.0f} GB/s", flush=True)
    del wsets

    for order in ("interleaved", "staggered", "chunk"):
        for splits, bn, nw, ns in [(16, 64, 4, 3), (16, 64, 8, 4), (32, 64, 4, 3), (64, 64, 4, 3)]:
            timed(sets, "probe", f"head/{order} splits={splits} BLOCK_N={bn} w{nw} s{ns}", probe_head(order, splits, bn, nw, ns))
    for programs in (128, sms, 2 * sms, 4 * sms, 8 * sms):
        for bn, nw, ns in [(64, 4, 3), (32, 4, 4)]:
            timed(sets, "probe", f"sweep/{programs} BLOCK_N={bn} w{nw} s{ns}", probe_sweep(programs, bn, nw, ns))

    measure("sdpa default (cuDNN)", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
    measure("triton two-launch 16x128 w4 s3",  # the kept candidate (decode_cuda_variants.py gates on this row)
            lambda q, k, v: sweep.tk.decode_attention(q, k, v, dict(n_splits=16, BLOCK_N=128, num_warps=4, num_stages=3)))
    for impl, name, shapes in ((sweep.tk.decode_attention, "two-launch", [(16, 128, 4, 3), (16, 64, 4, 3), (32, 64, 4, 3)]),
                               (sweep.tk.decode_attention_fused, "fused", [(16, 128, 8, 3)])):
        for sp, bn, nw, ns in shapes:
            for extra in (dict(interleaved=True), dict(interleaved=True, stagger=True), dict(stagger=True)):
                cfg = dict(n_splits=sp, BLOCK_N=bn, num_warps=nw, num_stages=ns, **extra)
                measure("triton %s %s" % (name, json.dumps(cfg, separators=(",", ":"))),
                        lambda q, k, v, c=cfg, i=impl: i(q, k, v, c))
    def save():  # after every part: a later part that fails (a trap, a timeout) loses only itself
        if "--out" in sys.argv:
            with open(sys.argv[sys.argv.index("--out") + 1], "w") as fh:
                json.dump(sweep.results, fh, indent=1)

    def cuda_configs(combine):
        for order in ("interleaved", "staggered"):
            for w, st, c in [(8, 2, 16), (8, 3, 16), (4, 3, 32), (4, 4, 32)]:
                cfg = dict(warps=w, stages=st, chunks=c, order=order, copy="thread", combine=combine)
                label = "cuda " + json.dumps(cfg, separators=(",", ":"))
                measure(label, lambda q, k, v, c=cfg: dac.decode_attention_cuda(q, k, v, c))
                for stop, what in ((3, "copies only"), (2, "streaming loop only"), (1, "without the final combine")):
                    f = lambda q, k, v, c=cfg, st=stop: dac.decode_attention_cuda(q, k, v, c, _stop_after=st)  # noqa: E731
                    print(f"phases   {label:64s} {what:26s} {sweep.graph_time_us(f, sets):7.2f} us", flush=True)
            save()

    save()
    cuda_configs("ticket")
    for warps, stages in ((8, 2), (4, 3)):
        for cluster in (2, 4, 8, 16):
            print(f"clusters decode_attention_w{warps}_s{stages} cluster {cluster}: at most "
                  f"{max_active_clusters('decode_attention_w%d_s%d' % (warps, stages), warps, warps * stages * dac._STAGE_BYTES, cluster)}"
                  " active at once", flush=True)
    measure("sdpa default (cuDNN), again", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
    save()
    # Last, because a bug in it traps and takes the process's CUDA context with it.
    good = cdc.correctness(tagged) and good
    cuda_configs("tagged")
    save()
    good = cdc.correctness(even) and good
    for w, st, per_sm in [(8, 2, 1), (8, 3, 1), (4, 3, 2), (4, 4, 1)]:
        cfg = dict(layout="even", warps=w, stages=st, blocks_per_sm=per_sm)
        label = "cuda " + json.dumps(cfg, separators=(",", ":"))
        measure(label, lambda q, k, v, c=cfg: dac.decode_attention_cuda(q, k, v, c))
        f = lambda q, k, v, c=cfg: dac.decode_attention_cuda(q, k, v, c, _stop_after=2)  # noqa: E731
        print(f"phases   {label:64s} {'streaming loop only':26s} {sweep.graph_time_us(f, sets):7.2f} us", flush=True)
        save()
    for kind in ("probe", "decode"):
        rows = sorted((r for r in sweep.results if r["kernel"] == kind and r.get("ok")), key=lambda r: r["us"])[:6]
        print(f"fastest {kind}:", *("%s %.2f us" % (r["variant"], r["us"]) for r in rows), sep="\n  ")
    if not good or not all(r["ok"] for r in sweep.results):
        sys.exit("decode_stream_probe: a kernel disagrees with the reference")


if __name__ == "__main__":
    main()
