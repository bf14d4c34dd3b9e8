# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 2: a forged window added after the real one. Like witness_relay.py, the tracer's
# descriptor N (HOTKERNEL_TRACE_FD) is replaced, at fn's first call, by a pipe to a child that
# keeps a copy of the socket. The child passes every record on unchanged and, right after each
# window's end line, writes a second window of its own: a begin line, a copy of that window's
# kernel records with every interval compressed to 0.8 of its length, and an end line with the
# right "kernels", "dropped": 0 and "begin_seq", all numbered on from the tracer's last record;
# the tracer's later records are renumbered after it, so the stream has no gap and no repeat. The
# reported times are scaled by 0.8 (the JSON encoder class, as in scaled_encoder.py), matching the
# forged window. A core that took the last or the fastest window would certify 1.25x. What
# catches it: the core requires exactly the windows the contract opens per run (protocol 4: one;
# protocol 5: one per timed replay plus the judged one), and protocol 5's bracket. Expected before
# and after protocol 5: invalid.
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

_APPEND = r"""
import json, os, sys
out, scale = int(sys.argv[1]), float(sys.argv[2])
shift, kernels = 0, []
def send(record):
    raw = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
    while raw:
        raw = raw[os.write(out, raw):]
for raw in sys.stdin.buffer:
    try:
        record = json.loads(raw)
    except ValueError:
        continue
    if not isinstance(record, dict) or not isinstance(record.get("seq"), int):
        continue
    record["seq"] += shift
    send(record)
    if record.get("type") == "kernel":
        kernels.append(record)
    elif record.get("type") == "witness" and record.get("phase") == "begin":
        kernels = []
    elif record.get("type") == "witness" and record.get("phase") == "end" and kernels:
        seq = record["seq"] + 1
        begin = seq
        send({"type": "witness", "phase": "begin", "pid": record["pid"], "seq": seq})
        anchor = min(k["start_ns"] for k in kernels)
        for k in kernels:
            seq += 1
            k = dict(k, seq=seq, start_ns=anchor + int(round((k["start_ns"] - anchor) * scale)),
                     end_ns=anchor + int(round((k["end_ns"] - anchor) * scale)))
            k["duration_ns"] = k["end_ns"] - k["start_ns"]
            send(k)
        seq += 1
        send({"type": "witness", "phase": "end", "pid": record["pid"], "kernels": len(kernels), "dropped": 0,
              "begin_seq": begin, "seq": seq})
        shift += seq - record["seq"]
        kernels = []
"""

_spec = os.environ.get("HOTKERNEL_TRACE_FD") or ""
_TRACE_FD = int(_spec.split(":")[0]) if _spec else None
_pipe = []


def _start_child():
    socket_copy = os.dup(_TRACE_FD)
    read_end, write_end = os.pipe()
    subprocess.Popen([sys.executable, "-c", _APPEND, str(socket_copy), str(SCALE)], stdin=read_end,
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
