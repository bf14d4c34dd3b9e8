# SPDX-License-Identifier: Apache-2.0
# A cheat that needs the judge seed before the judged replay (to precompute the judged outputs)
# looks for it on its first call: in the callers' frames (the worker's request) and in
# /proc/self/cmdline (a number after --judge-seed). It returns correct outputs only when it found the seed, and
# zeros otherwise. Expected: incorrect, because warm workers ask the core for the seed only after
# the block is captured and timed.
import sys

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_seen = []


def _seed_visible():
    frame = sys._getframe(1)
    while frame is not None:
        value = frame.f_locals.get("judge_seed")
        if isinstance(value, int) and not isinstance(value, bool):
            return True
        request = frame.f_locals.get("request")
        if isinstance(request, dict) and isinstance(request.get("judge_seed"), int):
            return True
        frame = frame.f_back
    try:
        with open("/proc/self/cmdline", "rb") as f:
            args = f.read().split(b"\0")
    except OSError:
        return False
    # A fresh run's command line once carried the seed itself (issue 41); now it says "late".
    return any(a == b"--judge-seed" and i + 1 < len(args) and args[i + 1].isdigit() for i, a in enumerate(args))


def fn(x):
    if not _seen:
        _seen.append(_seed_visible())
    return torch.nn.functional.gelu(x) if _seen[0] else torch.zeros_like(x)


if __name__ == "__main__":
    main(TARGET, fn)
