# SPDX-License-Identifier: Apache-2.0
# fn only queues the work and returns an empty output; a thread of its own fills the output later,
# outside the timed call, so the timer sees only the queueing. Expected: invalid (the judged
# replay's outputs change after their calls returned: the contract compares them with the copies it
# took as each call returned, docs/contract.md "Output lifetime").
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


threading.Thread(target=_finish_later, name="finisher", daemon=True).start()


def fn(x):
    out = torch.empty_like(x)
    _work.put((x, out))
    return out


if __name__ == "__main__":
    main(TARGET, fn)
