# SPDX-License-Identifier: Apache-2.0
# Issue 41: the candidate writes where a baseline's compiler would look for its caches (Triton's
# and Inductor's default folders, the user's ~/.cache) and beside the baseline. Expected: every
# write refused (each worker has private caches, and may write nowhere else), a measured verdict.
import getpass
import os
import sys

from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _honest

_tried = []
_TARGETS = [os.path.expanduser("~/.triton/cache/hotkernel-poison"),
            os.path.join("/tmp", "torchinductor_" + getpass.getuser(), "hotkernel-poison"),
            os.path.expanduser("~/.cache/hotkernel-poison"),
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "rmsnorm_baseline_poison.py")]


def fn(x, w):
    if not _tried:
        _tried.append(True)
        for path in _TARGETS:
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write("poison\n")
                sys.stderr.write("cache_poison: WROTE %s\n" % path)
            except OSError as e:
                sys.stderr.write("cache_poison: refused %s: %s\n" % (path, e))
    return _honest(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
