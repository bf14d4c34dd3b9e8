# SPDX-License-Identifier: Apache-2.0
# The GPU copy of tests/data/adversarial/scaled_median.py: rmsnorm-sized, against rmsnorm_baseline.py
# (bench/adversarial_table.py), fn the baseline's own.
# Issue 41, class 1 (b): the reported time scaled by 0.8 through a global of the statistics module.
# statistics.median begins with `data = sorted(data)`, and `sorted` is looked up in the module's
# globals before the builtins: a module global named sorted that returns the samples times 0.8
# makes the contract's statistics.median(samples) (the line's "ms") 0.8 of the real median, while
# statistics.median itself, the function the integrity snapshot covers, is the original. The
# samples (samples_ms) stay the real ones; only "ms" changes, which is what verify compares.
# What should catch it: the core's own clock around the timed replays (protocol 5's bracket) and,
# on CPU, "ms" against the median of samples_ms; on the GPU the witness. Expected after protocol
# 5: invalid.
import os
import builtins
import statistics

from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn

SCALE = float(os.environ.get("HOTKERNEL_FIXTURE_SCALE", "0.8"))  # the CPU test asks for 0.3


def _scaled_sorted(data, *args, **kwargs):
    return [v * SCALE if isinstance(v, float) else v for v in builtins.sorted(data, *args, **kwargs)]


statistics.sorted = _scaled_sorted


if __name__ == "__main__":
    main(TARGET, fn)
