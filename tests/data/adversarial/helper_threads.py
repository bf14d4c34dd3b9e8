# SPDX-License-Identifier: Apache-2.0
# Honest: fn computes its output itself, but the process keeps helper threads alive the way
# libraries do (torch.compile's compile-worker pool waits on a queue, tqdm's monitor wakes up now
# and then). They never touch an output, so the verdict must be a real one (issue 42).
import queue
import threading
import time

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_jobs = queue.Queue()


def _pool_worker():
    while True:
        job = _jobs.get()  # no job ever comes: an idle pool
        job()


def _monitor():
    while True:
        time.sleep(0.01)


threading.Thread(target=_pool_worker, name="InductorSubproc", daemon=True).start()
threading.Thread(target=_monitor, name="tqdm_monitor", daemon=True).start()


def fn(x):
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
