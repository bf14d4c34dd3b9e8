# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 3 on the CPU: on its first call the candidate plants a calibration under
# results/calibration/ of the target's folder (where `calibrate --record` keeps them) claiming an
# absurd copy rate. Expected: the write is refused (the worker may write only in its scratch), no
# file appears, and the verdict is the honest one.
import json
import os
import sys

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_tried = []


def _plant():
    claim = {"tool": "hotkernel-calibrate", "format": 1, "ok": True, "measured_at": "2099-01-01T00:00:00Z",
             "figures": {"copy_gbs": {"value": 4.0e6, "unit": "GB/s", "method": "planted"}}}
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "calibration")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "planted.json"), "w") as f:
            json.dump(claim, f)
        sys.stderr.write("calibration_write: planted\n")
    except OSError as e:
        sys.stderr.write("calibration_write: refused: %s\n" % e)


def fn(x):
    if not _tried:
        _tried.append(True)
        _plant()
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
