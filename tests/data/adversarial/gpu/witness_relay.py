# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 2: the witness rewritten on its way out, numbers kept. The tracer writes its
# records to descriptor N (HOTKERNEL_TRACE_FD=N:INODE in the environment at import, before CUDA
# starts), a socket whose other end only hotkernel holds. At import this candidate keeps its own
# copy of N and starts a child; at fn's first call (CUDA has started, the tracer has checked N's
# inode and taken it) it os.dup2s a pipe to the child over N. From then on every record the
# tracer writes goes through the child, which writes it on to the socket with each kernel's
# start_ns/end_ns moved towards the window's first kernel start by the factor 0.8 (durations
# times 0.8) and everything else unchanged: every "seq", the kernel count, the end line with
# "begin_seq" and "dropped": 0. The reported times are scaled by 0.8 the way scaled_encoder.py
# does it (the JSON encoder class json.dumps uses), so report and witness agree: the core sees an
# unbroken, well-numbered stream whose busy time matches the line. Before protocol 5 verify takes
# the line's time: faster by 1.25x. What should catch it: protocol 5's bracket (the core's own
# clock from go to done: the witnessed total, 0.8 of the real one, falls below the measured
# fraction of it). Expected after protocol 5: invalid.
import json
import os
import subprocess
import sys

from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _rmsnorm

SCALE = 0.8


class _ScalingEncoder(json.JSONEncoder):
    def encode(self, o):
        if isinstance(o, dict) and isinstance(o.get("ms"), float):
            o = dict(o, ms=o["ms"] * SCALE, samples_ms=[s * SCALE for s in o.get("samples_ms") or ()])
        return super().encode(o)


json.JSONEncoder = _ScalingEncoder

_REWRITE = r"""
import json, os, sys
out, scale = int(sys.argv[1]), float(sys.argv[2])
anchor = None
for raw in sys.stdin.buffer:
    try:
        record = json.loads(raw)
    except ValueError:
        record = None
    if isinstance(record, dict) and record.get("type") == "witness":
        anchor = None
    elif isinstance(record, dict) and record.get("type") == "kernel":
        if anchor is None:
            anchor = record["start_ns"]
        record["start_ns"] = anchor + int(round((record["start_ns"] - anchor) * scale))
        record["end_ns"] = anchor + int(round((record["end_ns"] - anchor) * scale))
        record["duration_ns"] = record["end_ns"] - record["start_ns"]
        raw = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
    while raw:
        raw = raw[os.write(out, raw):]
"""

_spec = os.environ.get("HOTKERNEL_TRACE_FD") or ""
_TRACE_FD = int(_spec.split(":")[0]) if _spec else None
_pipe = []


def _start_child():
    socket_copy = os.dup(_TRACE_FD)
    read_end, write_end = os.pipe()
    subprocess.Popen([sys.executable, "-c", _REWRITE, str(socket_copy), str(SCALE)], stdin=read_end,
                     pass_fds=(socket_copy,))
    for fd in (socket_copy, read_end):
        os.close(fd)
    _pipe.append(write_end)


if _TRACE_FD is not None:
    _start_child()


def fn(x, w):
    if _pipe:  # CUDA has started: the tracer took N; from now on it writes into the pipe
        os.dup2(_pipe[0], _TRACE_FD, inheritable=False)
        os.close(_pipe.pop())
    return _rmsnorm(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
