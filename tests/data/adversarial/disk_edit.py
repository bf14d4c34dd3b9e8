# SPDX-License-Identifier: Apache-2.0
# Rewrites the baseline file on disk while the verify runs (here harmlessly: a comment). Expected:
# invalid (the core hashes the scripts and the contract before the runs and after), or, where the
# candidate is confined (issue 41), the write refused and the file unchanged.
import os

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

if "--check-import" not in os.sys.argv:
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gelu_baseline.py"), "a") as f:
            f.write("# edited by disk_edit.py during a verify\n")
    except OSError as e:
        os.sys.stderr.write("disk_edit: refused: %s\n" % e)


def fn(x):
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
