# SPDX-License-Identifier: Apache-2.0
# Attack 3: a clock that runs a thousand times slow. Expected: invalid (time.perf_counter patched).
from _hotkernel_contract import main
from gelu_baseline import TARGET

import time

import torch

_real = time.perf_counter


def _slow_clock():
    return _real() / 1000.0


time.perf_counter = _slow_clock


def fn(x):
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
