# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 2: the real tracer silenced. At fn's first call (CUDA has started, so the tracer
# has checked and taken its descriptor N from HOTKERNEL_TRACE_FD and written its header) the
# candidate os.dup2s /dev/null over N: the tracer keeps writing, but nothing after the header
# reaches hotkernel. The times are honest (fn is the baseline's own): the fixture asks only
# whether a run whose witness vanished is noticed. What catches it: the line claims witness
# replays (or, in protocol 5, the core expects a window per timed replay) but the socket holds no
# window for the run, while the baseline's runs, started the same way, are witnessed. Expected
# before and after protocol 5: invalid.
import os

from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _rmsnorm

_spec = os.environ.get("HOTKERNEL_TRACE_FD") or ""
_TRACE_FD = [int(_spec.split(":")[0])] if _spec else []


def fn(x, w):
    if _TRACE_FD:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, _TRACE_FD.pop(), inheritable=False)
        os.close(null)
    return _rmsnorm(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
