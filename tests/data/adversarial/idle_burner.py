# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 5 on CPU: the baseline slowed by the candidate's children. fn is the baseline's
# own gelu, so the candidate's honest speed equals the baseline's. At import it starts a child
# that forks one burner per CPU; each burner streams through 128 MiB of memory (taking the core and
# evicting the caches) whenever this worker is idle, that is when its main thread used almost no
# CPU in the last millisecond (/proc/PID/schedstat: waiting on stdin between its runs, which is
# when the baseline runs), and sleeps whenever the worker is busy (its own runs). No signal from fn
# is needed and nothing in the candidate's process is patched. Before protocol 5 a candidate's
# children count as hotkernel's own processes: the baseline runs beside a burner on every core,
# the candidate alone. What should catch it: protocol 5's freeze of the other side's whole process
# tree while one side runs (the burners are the candidate's, frozen while the baseline runs).
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
for _ in range((os.cpu_count() or 1) - 1):
    if os.fork() == 0:
        break
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
