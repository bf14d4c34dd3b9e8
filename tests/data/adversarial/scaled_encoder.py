# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 1 (a): the reported times scaled by 0.8 through the JSON encoder class that
# json.dumps builds. The contract's _emit calls json.dumps with separators, so dumps does not take
# its cached encoder but `cls = JSONEncoder`, a global of the json package: replacing that global
# changes every line the contract prints, while json.dumps, _emit and os.write (the functions the
# integrity snapshot covers) stay the originals. Before protocol 5 the reported time is the time:
# verify on CPU takes it as 0.8 of the real one. What should catch it: the core's own clock around
# the timed replays (protocol 5's armed/go/done bracket: the reported total below the measured
# fraction of go->done); on the GPU also the witness, which becomes the time. Expected after
# protocol 5: invalid.
import os
import json

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

SCALE = float(os.environ.get("HOTKERNEL_FIXTURE_SCALE", "0.8"))  # the CPU test asks for 0.3


class _ScalingEncoder(json.JSONEncoder):
    def encode(self, o):
        if isinstance(o, dict) and isinstance(o.get("ms"), float):
            o = dict(o, ms=o["ms"] * SCALE, samples_ms=[s * SCALE for s in o.get("samples_ms") or ()])
        return super().encode(o)


json.JSONEncoder = _ScalingEncoder


def fn(x):
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
