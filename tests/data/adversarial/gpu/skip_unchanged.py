# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 8: work skipped between timed replays. The slow Triton rmsnorm of
# rmsnorm_slow_baseline.py (the same work per computed row), fused with a device-side check: each
# row's program first sums a probe of the row's input (its first 64 values, weighted by position)
# and compares it with the sum it stored for that row at the previous call from the same place in
# the block; then it stores the new sum, and a row in the skippable ninth (row % 9 == 0, 11% of
# the rows) whose probe is unchanged is not computed at all: its output buffer still holds the
# result of the previous call from that place, made for the same input. The state is one per call
# site, chosen by a host counter (state and buffers allocated on the first, eager call: none is
# made during capture), so a call never compares its input with another call's in the same
# replay, only with its own in the replay before: only a replay on unchanged inputs skips. It is capturable: no host sync, no data-dependent
# host control flow (the decision is the kernel's own `if`). Protocol 4: the timed replays run on
# unchanged inputs and skip; the judged replay (inputs refilled, outputs poisoned) computes every
# row, is correct, and is the only one witnessed. A ninth and not the fifth (22%): the
# witness now refuses a report below 0.85 of the judged replay's busy time, which a fifth would
# cross (about 0.78) and a ninth does not (about 0.89), so before protocol 5 this is faster, about
# 1.12x. What should catch it: protocol 5 refills the inputs from a fresh seed between timed
# replays, so no probe is ever unchanged and every row is computed (and every timed replay is
# witnessed). Expected after protocol 5: not faster than its honest equal (inconclusive, or
# slower by the probe's small cost).
from _hotkernel_contract import main
from rmsnorm_slow_baseline import ROUNDS, TARGET, rmsnorm_row

import torch
import triton
import triton.language as tl

SLOTS = 64  # call sites remembered: more than the block's calls (TARGET iters 50)
SAMPLE = 64
# The seen sums start at +inf, not NaN: Triton's != is an ordered compare, false against NaN, so a
# NaN start skipped rows on the very first call (the card showed it: the run-0 check failed).


@triton.jit
def _rmsnorm_skipping(x_ptr, w_ptr, y_ptr, seen_ptr, n_cols, eps, ROUNDS: tl.constexpr, BLOCK: tl.constexpr,
                      SAMPLE: tl.constexpr):
    row = tl.program_id(0)
    at = tl.arange(0, SAMPLE)
    probe = tl.sum(tl.load(x_ptr + row * n_cols + at).to(tl.float32) * (at + 1).to(tl.float32), axis=0)
    before = tl.load(seen_ptr + row)
    tl.store(seen_ptr + row, probe)
    if (before != probe) | (row % 9 != 0):
        rmsnorm_row(x_ptr, w_ptr, y_ptr, row, n_cols, eps, ROUNDS, BLOCK)


_state = []  # per call site: (probe sums of its last input, its output buffer)
_calls = [0]


def fn(x, w):
    rows, cols = x.shape
    if not _state:
        for _ in range(SLOTS):
            _state.append((torch.full((rows,), float("inf"), device=x.device), torch.empty_like(x)))
    seen, y = _state[_calls[0] % SLOTS]
    _calls[0] += 1
    _rmsnorm_skipping[(rows,)](x, w, y, seen, cols, 1e-6, ROUNDS=ROUNDS, BLOCK=triton.next_power_of_2(cols),
                               SAMPLE=SAMPLE)
    return y


if __name__ == "__main__":
    main(TARGET, fn)
