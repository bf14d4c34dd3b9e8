# SPDX-License-Identifier: Apache-2.0
# Issue 19: no function is replaced, so the contract's integrity check sees nothing. A thread
# watches the main thread's stack and, once the run's result line holds its time, halves it in
# place before the line is printed (the samples themselves are a tuple the thread cannot change,
# issue 42). Only the GPU's witness of the same block shows the time is not the kernel's (half of
# it is still far above the physical floor, so the floor cannot). Expected: invalid.
import sys
import threading
import time

from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn

_done = set()


def _shrink_time():
    while True:
        for frame in list(sys._current_frames().values()):
            while frame is not None:
                if frame.f_code.co_name in ("run", "_emit_checked"):
                    line = frame.f_locals.get("line")
                    if isinstance(line, dict) and line.get("ms") and id(line) not in _done:
                        _done.add(id(line))
                        line["samples_ms"] = [s / 2 for s in line["samples_ms"]]
                        line["ms"] = line["ms"] / 2
                frame = frame.f_back
        time.sleep(0)


# Switch between threads often, so that the thread gets its turn in the short window between the
# line's time and its printing.
sys.setswitchinterval(1e-5)
threading.Thread(target=_shrink_time, daemon=True).start()

if __name__ == "__main__":
    main(TARGET, fn)
