# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 2: the witness written by the candidate, not the tracer. The contract finds the
# tracer's window function through ctypes.CDLL(CUDA_INJECTION64_PATH, RTLD_NOLOAD); this candidate
# replaces ctypes.CDLL (and ctypes.cdll), which no integrity snapshot covers, so that for the
# tracer's path it returns a stand-in whose hotkernel_tracer_witness writes the window itself,
# straight into the tracer's descriptor N (HOTKERNEL_TRACE_FD, still open in this process): a
# begin line, 50 back-to-back kernel records in one graph whose busy time is 0.8 of the wall time
# between the window's opening and closing, and an end line with "kernels": 50, "dropped": 0 and
# "begin_seq", numbered on from the tracer's header (seq 0), which is all the real tracer writes:
# in witness mode it records nothing until its own window function is called, which never
# happens. Every other library loads as before. At exit /dev/null goes over N so the tracer's
# footer does not repeat a number. The reported times are scaled by 0.8 (the JSON encoder class,
# as in scaled_encoder.py): witness and report agree, the stream is unbroken and well numbered
# (docs/contract.md names this: Python that keeps the tracer's window from being written and
# writes a whole window of its own). Before protocol 5: faster by about 1.25x. What should catch
# it: protocol 5's bracket (the core's own clock from go to done against the witnessed total,
# 0.8 of the real one); a window function whose records the core cannot tie to the tracer (for
# example the window opened by the core or the supervisor, not through the candidate's ctypes).
# Expected after protocol 5: invalid.
import atexit
import ctypes
import json
import os
import time

from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn

SCALE = 0.8
KERNELS = 50

_spec = os.environ.get("HOTKERNEL_TRACE_FD") or ""
_TRACE_FD = int(_spec.split(":")[0]) if _spec else None
_INJECTED = os.environ.get("CUDA_INJECTION64_PATH") or None


class _ScalingEncoder(json.JSONEncoder):
    def encode(self, o):
        if isinstance(o, dict) and isinstance(o.get("ms"), float):
            o = dict(o, ms=o["ms"] * SCALE, samples_ms=[s * SCALE for s in o.get("samples_ms") or ()])
        return super().encode(o)


json.JSONEncoder = _ScalingEncoder


class _ForgedWindow:
    seq = 1  # the tracer wrote its header as record 0 when CUDA started
    opened = None

    def _send(self, record):
        record["seq"] = _ForgedWindow.seq
        _ForgedWindow.seq += 1
        raw = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
        while raw:
            raw = raw[os.write(_TRACE_FD, raw):]
        return record["seq"]

    def hotkernel_tracer_witness(self, on):
        pid = os.getpid()
        if on:
            _ForgedWindow.opened = (time.perf_counter_ns(), self._send({"type": "witness", "phase": "begin",
                                                                         "pid": pid}))
            return 1
        started, begin = _ForgedWindow.opened
        each = max(1, int((time.perf_counter_ns() - started) * SCALE / KERNELS))
        clock = time.time_ns()
        for i in range(KERNELS):
            self._send({"type": "kernel", "name": "_rmsnorm", "mangled": "_rmsnorm", "start_ns": clock + i * each,
                        "end_ns": clock + (i + 1) * each, "duration_ns": each, "grid": [8192, 1, 1],
                        "block": [256, 1, 1], "registers_per_thread": 32, "static_shared_bytes": 0,
                        "dynamic_shared_bytes": 0, "local_bytes_per_thread": 0, "device": 0, "context": 1,
                        "stream": 7, "correlation_id": i + 1, "graph_id": 2, "pid": pid})
        self._send({"type": "witness", "phase": "end", "pid": pid, "kernels": KERNELS, "dropped": 0,
                    "begin_seq": begin})
        return 1


_RealCDLL = ctypes.CDLL


def _cdll(name, *args, **kwargs):
    if _TRACE_FD is not None and name and name == _INJECTED:
        return _ForgedWindow()
    return _RealCDLL(name, *args, **kwargs)


ctypes.CDLL = _cdll
ctypes.cdll = ctypes.LibraryLoader(_cdll)


@atexit.register
def _swallow_footer():
    if _TRACE_FD is not None:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, _TRACE_FD)
        os.close(null)


if __name__ == "__main__":
    main(TARGET, fn)
