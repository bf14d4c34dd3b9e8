# SPDX-License-Identifier: Apache-2.0
# fn only queues the work and returns an empty output; a thread of its own fills the output later,
# outside the timed region, before the checker happens to read it. Expected: invalid (a Python
# thread started by the candidate is still alive at the judged replay).
import queue
import threading

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_work = queue.Queue()


def _finish_later():
    while True:
        x, out = _work.get()
        out.copy_(torch.nn.functional.gelu(x))
        _work.task_done()


threading.Thread(target=_finish_later, name="finisher", daemon=True).start()


def fn(x):
    out = torch.empty_like(x)
    _work.put((x, out))
    _work.join()  # the honest-looking part: here it waits; a faster cheat would not
    return out


if __name__ == "__main__":
    main(TARGET, fn)
