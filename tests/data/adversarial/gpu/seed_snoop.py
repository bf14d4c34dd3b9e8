# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 6, on the card: a cheat that returns correct outputs only when it can read the
# judge seed before its timed block (a number after --judge-seed on its command line, as
# `verify --fresh` once passed it), and garbage otherwise. Run with --fresh. Expected: incorrect,
# since a fresh run now asks for its seed on stdin after the block is captured and timed.
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _honest

import torch

_seen = []


def _seed_on_command_line():
    try:
        with open("/proc/self/cmdline", "rb") as f:
            args = f.read().split(b"\0")
    except OSError:
        return False
    return any(a == b"--judge-seed" and i + 1 < len(args) and args[i + 1].isdigit() for i, a in enumerate(args))


def fn(x, w):
    if not _seen:
        _seen.append(_seed_on_command_line())
    return _honest(x, w) if _seen[0] else torch.zeros_like(x)


if __name__ == "__main__":
    main(TARGET, fn)
