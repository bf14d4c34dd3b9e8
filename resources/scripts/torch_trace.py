# SPDX-License-Identifier: Apache-2.0
"""Runs a user's script under torch.profiler and prints one JSON document on stdout.

hotkernel's torch_trace tool runs this in the user's interpreter (HOTKERNEL_PYTHON):
    python torch_trace.py [--top N] [--chrome-trace PATH] [--execution-trace PATH] -- SCRIPT [ARGS...]
Everything the script prints goes to stderr: stdout carries only the JSON document, so a chatty
script cannot corrupt it. Works with torch 1.13 and newer, with or without CUDA.

With --execution-trace, torch.profiler's ExecutionTraceObserver records every op with all its
arguments (record_shapes alone drops non-tensor ones: gelu's approximate='tanh' comes back as None),
and "op_rows" joins each GPU kernel to the top-level aten op that launched it: kernel -> its CPU op
by External id (the profiler's correlation) -> that op's Record function id -> the trace node with
the same rf_id -> up the trace's parents to the outermost aten op. hotkernel new --from-trace turns
a row into a target.
"""
import argparse
import json
import os
import runpy
import stat
import sys
import tempfile
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


def _attr(node, name):
    for a in node.get("attrs", []):
        if a.get("name") == name:
            return a.get("value")
    return None


def _signature(node):
    """What makes two calls of an op the same target: its name and every input's type, shape and, for
    non-tensors, value. Tensor values are ids that differ per call, so they are left out."""
    inputs = node.get("inputs", {})
    types = inputs.get("types", [])
    values = inputs.get("values", [])
    kept = [None if str(t).startswith("Tensor") else v for t, v in zip(types, values)]
    return json.dumps([node.get("name"), types, inputs.get("shapes", []), kept], sort_keys=True)


TRACE_LIMIT = 2 * 1024 * 1024 * 1024  # a torch trace of a whole model stays well below


def _read_trace(path):
    """A trace torch wrote into this run's folder: never a link followed, a FIFO or a device waited
    on, or more than TRACE_LIMIT bytes read (issue 39)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise OSError("%s is not a regular file" % path)
        data = f.read(TRACE_LIMIT + 1)
    if len(data) > TRACE_LIMIT:
        raise OSError("%s is larger than %d bytes" % (path, TRACE_LIMIT))
    return data


def _op_rows(chrome_trace_path, execution_trace_path):
    """Rows of (top-level aten op, arguments) with the kernels they launched, heaviest first."""
    events = json.loads(_read_trace(chrome_trace_path)).get("traceEvents", [])
    nodes = json.loads(_read_trace(execution_trace_path)).get("nodes", [])
    by_id = {n["id"]: n for n in nodes}
    by_rf = {}
    for n in nodes:
        rf = _attr(n, "rf_id")
        if rf is not None:
            by_rf[int(rf)] = n
    op_rf = {}      # External id -> Record function id of the innermost CPU op with it
    runtime_ext = {}  # correlation -> External id, from the runtime launch calls
    for e in events:
        args = e.get("args") or {}
        if e.get("cat") == "cpu_op" and "External id" in args and "Record function id" in args:
            op_rf[int(args["External id"])] = int(args["Record function id"])
        elif e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in args and "External id" in args:
            runtime_ext[int(args["correlation"])] = int(args["External id"])
    rows = {}
    unjoined = {}
    for e in events:
        if e.get("cat") != "kernel":
            continue
        args = e.get("args") or {}
        ext = args.get("External id")
        if ext is None and "correlation" in args:
            ext = runtime_ext.get(int(args["correlation"]))
        node = by_rf.get(op_rf.get(int(ext), -1)) if ext is not None else None
        name = e.get("name", "")
        duration = float(e.get("dur", 0.0))
        if node is None:
            unjoined[name] = unjoined.get(name, 0.0) + duration
            continue
        top = node
        while True:
            parent = by_id.get(top.get("ctrl_deps"))
            if parent is None or not str(parent.get("name", "")).startswith("aten::"):
                break
            top = parent
        key = _signature(top)
        row = rows.setdefault(key, {"name": top.get("name"), "et_node": top.get("id"),
                                    "schema": _attr(top, "op_schema") or "", "nodes": set(),
                                    "device_total_us": 0.0, "kernels": {},
                                    "input_shapes": top.get("inputs", {}).get("shapes", []),
                                    "input_types": top.get("inputs", {}).get("types", [])})
        row["nodes"].add(top.get("id"))
        row["device_total_us"] += duration
        k = row["kernels"].setdefault(name, {"name": name, "launches": 0, "total_us": 0.0})
        k["launches"] += 1
        k["total_us"] += duration
    out = sorted(rows.values(), key=lambda r: r["device_total_us"], reverse=True)
    total = sum(r["device_total_us"] for r in out) + sum(unjoined.values())
    for i, r in enumerate(out, 1):
        r["row"] = i
        r["calls"] = len(r.pop("nodes"))
        r["share"] = r["device_total_us"] / total if total > 0 else 0.0
        r["kernels"] = sorted(r["kernels"].values(), key=lambda k: k["total_us"], reverse=True)
    return out, sorted(({"name": n, "total_us": t} for n, t in unjoined.items()),
                       key=lambda k: k["total_us"], reverse=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--chrome-trace", default="")
    parser.add_argument("--execution-trace", default="")
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
    observer = None
    if options.execution_trace:
        try:
            from torch.profiler import ExecutionTraceObserver
            observer = ExecutionTraceObserver().register_callback(options.execution_trace)
        except Exception as e:  # noqa: BLE001 - old torch: no execution trace, the rest still works
            document["execution_trace_error"] = "torch %s has no usable ExecutionTraceObserver: %s" % (
                torch.__version__, e)
    extra = {"execution_trace_observer": observer} if observer is not None else {}
    with profile(activities=activities, record_shapes=True, **extra) as profiler:
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
    chrome_trace = options.chrome_trace
    if not chrome_trace and observer is not None:
        # The join needs the kernels' correlation: a chrome trace beside the execution trace, removed after.
        fd, chrome_trace = tempfile.mkstemp(suffix=".kineto.json",
                                            dir=os.path.dirname(os.path.abspath(options.execution_trace)))
        os.close(fd)
    if chrome_trace:
        try:
            profiler.export_chrome_trace(chrome_trace)
            if options.chrome_trace:
                document["chrome_trace"] = options.chrome_trace
        except Exception as e:  # noqa: BLE001
            document["chrome_trace_error"] = str(e)
    if observer is not None:
        try:
            observer.unregister_callback()
        except Exception:  # noqa: BLE001 - already stopped by the profiler
            pass
        document["execution_trace"] = options.execution_trace
        try:
            rows, unjoined = _op_rows(chrome_trace, options.execution_trace)
            document["op_row_count"] = len(rows)
            document["op_rows"] = rows[:200]  # the heaviest; a large model can have thousands
            document["unjoined_kernels"] = unjoined[:options.top]
        except Exception as e:  # noqa: BLE001 - the ranking above stands without the join
            document["op_rows_error"] = "%s: %s" % (type(e).__name__, e)
        if not options.chrome_trace:
            try:
                os.remove(chrome_trace)
            except OSError:
                pass
    out.write(json.dumps(document) + "\n")
    out.flush()
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
