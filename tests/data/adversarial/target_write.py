# SPDX-License-Identifier: Apache-2.0
# Issue 41: the candidate writes into the target's folder (a file beside the scripts, and a
# replacement of the vendored contract's neighbour). Expected: refused; no file appears there.
import os
import sys

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
_tried = []


def fn(x):
    if not _tried:
        _tried.append(True)
        for name in ("planted_by_candidate.txt", "gelu_baseline.pyc"):
            try:
                with open(os.path.join(_HERE, name), "w") as f:
                    f.write("planted\n")
                sys.stderr.write("target_write: wrote %s\n" % name)
            except OSError as e:
                sys.stderr.write("target_write: refused: %s\n" % e)
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
