# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 1 (d): the protocol descriptor redirected to a child that relays the lines with
# the times scaled by 0.8. The contract keeps a private duplicate of stdout for its lines
# (_hotkernel_contract._protocol_fd, a module global, not a function). At import this candidate
# keeps a copy of that descriptor, starts a child that reads a pipe and writes to the copy, and
# os.dup2s the pipe's write end over the protocol descriptor. The contract still calls the
# original _emit, json.dumps and os.write (the integrity snapshot sees nothing); every line goes
# through the child, which multiplies "ms" and "samples_ms" by 0.8 and passes every other line on
# unchanged (ready, judge_seed, protocol 5's armed and done). The child exits when the pipe closes.
# What should catch it: the core's own clock around the timed replays (protocol 5's bracket: the
# relay cannot make done arrive earlier, only later); on the GPU the witness. Expected after
# protocol 5: invalid.
import os
import subprocess
import sys

import _hotkernel_contract
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

SCALE = float(os.environ.get("HOTKERNEL_FIXTURE_SCALE", "0.8"))  # the CPU test asks for 0.3
_RELAY = r"""
import json, os, sys
out = int(sys.argv[1])
scale = float(sys.argv[2])
for raw in sys.stdin.buffer:
    try:
        line = json.loads(raw)
    except ValueError:
        line = None
    if isinstance(line, dict) and isinstance(line.get("ms"), float):
        line["ms"] *= scale
        line["samples_ms"] = [s * scale for s in line.get("samples_ms") or ()]
        raw = (json.dumps(line, separators=(", ", ": ")) + "\n").encode("utf-8")
    while raw:
        raw = raw[os.write(out, raw):]
"""


def _redirect():
    fd = _hotkernel_contract._protocol_fd
    real = os.dup(fd)
    read_end, write_end = os.pipe()
    subprocess.Popen([sys.executable, "-c", _RELAY, str(real), str(SCALE)], stdin=read_end, pass_fds=(real,))
    os.dup2(write_end, fd)
    for spare in (real, read_end, write_end):
        os.close(spare)


_redirect()


def fn(x):
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
