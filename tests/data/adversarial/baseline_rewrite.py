# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 4 on the CPU: the baseline changed on disk. At import (while the baseline worker
# may still be starting) the candidate rewrites gelu_baseline.py to do three times the work, and
# restores its bytes and its mtime on its first call. Expected: the write is refused where the
# worker is confined (the file's ctime does not move); where it is not, the verify is invalid
# (the core hashes every source file a worker imported at ready and after the last pair).
import os
import sys

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gelu_baseline.py")
_saved = None

if "--check-import" not in sys.argv:
    try:
        with open(_PATH, "rb") as f:
            original = f.read()
        stat = os.stat(_PATH)
        slowed = original.replace(b"    return torch.nn.functional.gelu(x)\n",
                                  b"    for _ in range(2):\n        torch.nn.functional.gelu(x)\n"
                                  b"    return torch.nn.functional.gelu(x)\n")
        with open(_PATH, "wb") as f:
            f.write(slowed)
        _saved = (original, stat.st_atime_ns, stat.st_mtime_ns)
        sys.stderr.write("baseline_rewrite: rewrote the baseline\n")
    except OSError as e:
        sys.stderr.write("baseline_rewrite: refused: %s\n" % e)


def fn(x):
    global _saved
    if _saved is not None:
        original, atime, mtime = _saved
        _saved = None
        with open(_PATH, "wb") as f:
            f.write(original)
        os.utime(_PATH, ns=(atime, mtime))
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
