# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 5, detached: idle_burner.py's burners, but they leave the candidate's process
# tree as far as Python lets them: the child calls setsid (a session and process group of its own)
# and forks the burners, then exits, so no burner is a child of the worker or of its child, none is
# in the worker's process group or session, and each is reparented to the nearest subreaper (the
# supervisor, core/native/supervise.cpp) or to init. A freeze that walks the worker's children or
# signals its process group misses them; a freeze of the supervisor's whole subtree (it is a
# subreaper) or of the worker's cgroup does not. The burners still end when the worker is gone.
# Expected after protocol 5: not faster (inconclusive, or slower).
import os
import subprocess
import sys

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_BURNERS = r"""
import os, select, sys, time
parent, alive = int(sys.argv[1]), int(sys.argv[2])
def cpu_ns():
    try:
        with open("/proc/%d/schedstat" % parent) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
os.setsid()
for _ in range(os.cpu_count() or 1):
    if os.fork() == 0:
        break
else:
    os._exit(0)  # the burners' parent goes: they are reparented, out of the worker's tree
# Each burner streams through memory far larger than the last-level cache: it takes the CPU and
# evicts the baseline's inputs at once.
src, dst = bytearray(64 << 20), bytearray(64 << 20)
view_src, view_dst, chunk, at = memoryview(src), memoryview(dst), 1 << 20, 0
last, busy_until = cpu_ns(), 0.0
# The pipe turns readable (end of file) when the worker, the only holder of its write end, is gone.
while last is not None and not select.select([alive], [], [], 0)[0]:
    now = time.monotonic()
    used = cpu_ns()
    if used is None:
        break
    if used - last > 200000:  # over 0.2 ms of CPU in the last 1 ms: the worker is running
        busy_until = now + 0.005
    last = used
    if now < busy_until:
        time.sleep(0.001)
    else:
        end = now + 0.001
        while time.monotonic() < end:
            view_dst[at:at + chunk] = view_src[at:at + chunk]
            at = (at + chunk) % len(src)
"""
_ALIVE = []  # the write end of the burners' pipe: held, never written, closed only when this process ends


def _start_burners():
    read_end, write_end = os.pipe()
    _ALIVE.append(write_end)
    subprocess.Popen([sys.executable, "-c", _BURNERS, str(os.getpid()), str(read_end)], stdin=subprocess.DEVNULL,
                     pass_fds=(read_end,))
    os.close(read_end)


_start_burners()


def fn(x):
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
