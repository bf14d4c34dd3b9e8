# SPDX-License-Identifier: Apache-2.0
# Issue 19: no function is replaced, so the contract's integrity check sees nothing. A thread
# watches the main thread's stack and, once the timed block has returned its samples, halves them
# in place, before the contract takes their median. Only the GPU's witness of the same block
# shows the time is not the kernel's (half of it is still far above the physical floor, so the
# floor cannot). Expected: invalid.
import sys
import threading
import time

from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn

_done = set()


def _shrink_samples():
    while True:
        for frame in list(sys._current_frames().values()):
            while frame is not None:
                if frame.f_code.co_name == "run":
                    samples = frame.f_locals.get("samples")
                    if isinstance(samples, list) and samples and id(samples) not in _done:
                        _done.add(id(samples))
                        samples[:] = [s / 2 for s in samples]
                frame = frame.f_back
        time.sleep(0.0005)


threading.Thread(target=_shrink_samples, daemon=True).start()

if __name__ == "__main__":
    main(TARGET, fn)
