# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 5 on the GPU: the baseline slowed by the candidate's child. fn is the baseline's
# own rmsnorm, so the candidate's honest speed equals the baseline's. At import it starts a child
# process that keeps the GPU busy with bf16 matmuls (8192x8192, about 1.5 ms each on an H100, at
# most two queued, so it stops within a few ms) whenever this worker is idle, that is when its
# main thread used almost no CPU in the last millisecond (/proc/PID/schedstat: the worker waits on
# stdin between its runs, which is when the baseline runs; during its own runs it computes or
# spins in cudaEventSynchronize), and pauses whenever the worker is busy. No signal from fn is
# needed and nothing in the candidate's process is patched. The child leaves hotkernel's tracer
# out (it is not a worker) and ends when the worker is gone. Before protocol 5 a candidate's
# children count as hotkernel's own processes and the process list is read only before and after
# all pairs: issue 41 saw 1.65x. What should catch it: protocol 5's freeze of the other side's
# process tree while one side runs (the child is the candidate's, frozen while the baseline runs;
# the two queued matmuls drain before the baseline's timed replays), and per-run GPU use per
# process. Expected after protocol 5: not faster (inconclusive, or slower).
import os
import subprocess
import sys

from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn

_HOG = r"""
import os, select, sys, time
import torch
parent, alive = int(sys.argv[1]), int(sys.argv[2])
def cpu_ns():
    try:
        with open("/proc/%d/schedstat" % parent) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
out = [torch.empty_like(a) for _ in range(2)]
done = [torch.cuda.Event() for _ in range(2)]
turn, last, busy_until = 0, cpu_ns(), 0.0
while last is not None and not select.select([alive], [], [], 0)[0]:
    now = time.monotonic()
    used = cpu_ns()
    if used is None:
        break
    if used - last > 200000:  # over 0.2 ms of CPU since the last look: the worker is running
        busy_until = now + 0.005
    last = used
    if now < busy_until:
        time.sleep(0.001)
        continue
    done[turn].synchronize()  # at most two matmuls queued
    torch.mm(a, a, out=out[turn])
    done[turn].record()
    turn ^= 1
"""
_ALIVE = []  # the write end of the child's pipe: held, never written, closed only when this process ends


def _start_hog():
    read_end, write_end = os.pipe()
    _ALIVE.append(write_end)
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_INJECTION64_PATH", "HOTKERNEL_TRACE_FD",
                                                           "HOTKERNEL_TRACE_WITNESS")}
    subprocess.Popen([sys.executable, "-c", _HOG, str(os.getpid()), str(read_end)], stdin=subprocess.DEVNULL,
                     pass_fds=(read_end,), env=env)
    os.close(read_end)


_start_hog()

if __name__ == "__main__":
    main(TARGET, fn)
