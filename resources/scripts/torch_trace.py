# SPDX-License-Identifier: Apache-2.0
"""Runs a user's script under torch.profiler and prints one JSON document on stdout.

hotkernel's torch_trace tool runs this in the user's interpreter (HOTKERNEL_PYTHON):
    python torch_trace.py [--top N] [--chrome-trace PATH] -- SCRIPT [ARGS...]
Everything the script prints goes to stderr: stdout carries only the JSON document, so a chatty
script cannot corrupt it. Works with torch 1.13 and newer, with or without CUDA.
"""
import argparse
import json
import os
import runpy
import sys
import time
import traceback


def _device_time_us(event, attribute_stem):
    # torch >= 2.4 calls it device time; older releases call it cuda time.
    for name in ("self_device_time_total", "self_cuda_time_total") if attribute_stem == "self" else (
            "device_time_total", "cuda_time_total"):
        value = getattr(event, name, None)
        if value is not None:
            return float(value)
    return 0.0


def _kernels(profiler, device_type_cuda):
    """Per kernel name: calls and device time, from the profiler's device-side events."""
    table = {}
    for event in profiler.events():
        if getattr(event, "device_type", None) != device_type_cuda:
            continue
        duration = float(event.time_range.elapsed_us())
        row = table.setdefault(event.name, {"name": event.name, "calls": 0, "total_us": 0.0,
                                            "min_us": None, "max_us": None})
        row["calls"] += 1
        row["total_us"] += duration
        row["min_us"] = duration if row["min_us"] is None else min(row["min_us"], duration)
        row["max_us"] = duration if row["max_us"] is None else max(row["max_us"], duration)
    if not table:
        # Some releases keep device events only in the averages: no min/max there.
        for avg in profiler.key_averages():
            if getattr(avg, "device_type", None) != device_type_cuda:
                continue
            total = _device_time_us(avg, "self")
            table[avg.key] = {"name": avg.key, "calls": int(avg.count), "total_us": total,
                              "min_us": None, "max_us": None}
    rows = sorted(table.values(), key=lambda r: r["total_us"], reverse=True)
    total = sum(r["total_us"] for r in rows)
    for r in rows:
        r["avg_us"] = r["total_us"] / r["calls"]
        r["share"] = r["total_us"] / total if total > 0 else 0.0
    return rows, total


def _ops(profiler, device_type_cpu):
    """aten ops grouped by input shapes, heaviest (device time, then CPU time) first."""
    rows = []
    for avg in profiler.key_averages(group_by_input_shape=True):
        if not avg.key.startswith("aten::"):
            continue
        if getattr(avg, "device_type", device_type_cpu) != device_type_cpu:
            continue
        rows.append({
            "name": avg.key,
            "input_shapes": [list(s) if isinstance(s, (list, tuple)) else s for s in (avg.input_shapes or [])],
            "calls": int(avg.count),
            "cpu_total_us": float(avg.cpu_time_total),
            "self_cpu_us": float(avg.self_cpu_time_total),
            "device_total_us": _device_time_us(avg, "self"),
        })
    rows.sort(key=lambda r: (r["device_total_us"], r["cpu_total_us"]), reverse=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--chrome-trace", default="")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()

    # Keep the real stdout for our document; everything else (the script, torch) goes to stderr.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    document = {"tool": "torch_trace", "script": options.script, "args": options.args,
                "python": sys.version.split()[0]}
    try:
        import torch
        from torch.autograd import DeviceType
        from torch.profiler import ProfilerActivity, profile
    except Exception as e:  # noqa: BLE001 - any import failure is reported, not raised
        document["error"] = "cannot import torch in %s: %s" % (sys.executable, e)
        out.write(json.dumps(document) + "\n")
        out.flush()
        return 2

    cuda = torch.cuda.is_available()
    document["torch"] = torch.__version__
    document["device"] = "cuda" if cuda else "cpu"
    document["device_name"] = torch.cuda.get_device_name(0) if cuda else "cpu"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])

    sys.argv = [options.script] + list(options.args)
    script_dir = os.path.dirname(os.path.abspath(options.script))
    if script_dir not in sys.path:
        sys.path.insert(0, script_dir)
    exit_code = 0
    started = time.perf_counter()
    with profile(activities=activities, record_shapes=True) as profiler:
        try:
            runpy.run_path(options.script, run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if code:
                exit_code = code
                document["error"] = "the script exited with status %d" % code
        except BaseException:  # noqa: BLE001 - the traceback goes into the document
            exit_code = 1
            document["error"] = "the script raised an exception"
            document["traceback"] = traceback.format_exc()
            traceback.print_exc()
        if cuda:
            torch.cuda.synchronize()
    document["wall_s"] = time.perf_counter() - started

    kernels, total_us = _kernels(profiler, DeviceType.CUDA) if cuda else ([], 0.0)
    ops = _ops(profiler, DeviceType.CPU)
    document["kernel_total_us"] = total_us
    document["kernel_count"] = len(kernels)
    document["kernels"] = kernels[:options.top]
    document["op_count"] = len(ops)
    document["ops"] = ops[:options.top]
    if not cuda:
        document["note"] = ("torch %s sees no CUDA device here, so there are no GPU kernels: the ops below are "
                            "CPU ops with CPU times. Run on a machine with a GPU (and a CUDA build of torch) "
                            "for device times." % torch.__version__)
    elif not kernels:
        document["note"] = "the script launched no GPU kernels while it was profiled"
    if options.chrome_trace:
        try:
            profiler.export_chrome_trace(options.chrome_trace)
            document["chrome_trace"] = options.chrome_trace
        except Exception as e:  # noqa: BLE001
            document["chrome_trace_error"] = str(e)
    out.write(json.dumps(document) + "\n")
    out.flush()
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
