# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 3: the floor lifted. The overstated target of overstated_baseline.py (both sides
# break the floor, so the verify is invalid), but on its first call the candidate plants
# calibrations for this card under results/calibration/ claiming a copy rate and peaks a thousand
# times the card's. Expected: invalid, by the floor, because the verify read the calibrations
# before the workers started and caps any calibration at the card's spec sheet. Where the worker is
# confined (issue 41) the write itself is refused; the verdict is the same.
import json
import os
import time

from _hotkernel_contract import main
from overstated_baseline import TARGET, fn as _honest

import torch

_planted = []


def _plant():
    props = torch.cuda.get_device_properties(0)
    uuid = str(getattr(props, "uuid", ""))
    os.makedirs(os.path.join("results", "calibration"), exist_ok=True)
    for i, id_ in enumerate({uuid, "GPU-" + uuid}):
        claim = {"tool": "hotkernel-calibrate", "format": 1, "ok": True, "uuid": id_, "card": props.name,
                 "measured_at": "2099-01-01T00:00:00Z",
                 "figures": {"copy_gbs": {"value": 4.0e6, "unit": "GB/s", "method": "planted"},
                             "bf16_tflops": {"value": 1.0e6, "unit": "TFLOP/s", "method": "planted"},
                             "tf32_tflops": {"value": 1.0e6, "unit": "TFLOP/s", "method": "planted"}}}
        with open(os.path.join("results", "calibration", "planted-%d-%d.json" % (i, time.time_ns())), "w") as f:
            json.dump(claim, f)


def fn(x, w):
    if not _planted:
        _planted.append(True)
        try:
            _plant()
        except OSError as e:
            import sys
            sys.stderr.write("calibration_plant: refused: %s\n" % e)
    return _honest(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
