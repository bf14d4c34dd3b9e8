# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 8, a step further than skip_unchanged.py: the same device-side check, on the
# issue's fifth of the rows (row % 9 < 2, 22%), but the state is kept per input pointer instead of
# per call site, so a call skips the rows whose probe is unchanged since the previous call on the
# same memory. The timed block rotates k input sets (k = 3 for 64 MiB of x against the H100's or
# H200's L2) over 50 calls: each set comes back about 16 times within one replay, unchanged, and
# those calls skip a fifth of the rows whatever happens between replays. The judged replay's first
# call of each set computes every row on the refilled inputs; the later calls of that set skip
# rows whose outputs the first one already wrote into the same buffer (one per pointer; the
# block's last output of each set is its own), so the judged outputs are correct, and the
# witnessed (judged) replay skips as much as the timed ones: report and witness agree, the GPU
# really does less. Capturable: state and buffers are allocated on the eager calls of the check,
# which sees every set before the capture. Protocol 4: faster, about 1.2x. Protocol 5 as planned
# refills the inputs between timed replays, not between the calls of one replay, so it does not
# reach this; judging more outputs would not either (each is correct). What would: no two calls
# of a timed block on unchanged inputs (as many rotated sets as calls, or each set refilled
# between its uses inside the block, the refill's time taken out the same way on both sides).
# Expected (what an honest harness must say): not faster than its honest equal (inconclusive, or
# slower).
from _hotkernel_contract import main
from rmsnorm_slow_baseline import ROUNDS, TARGET, rmsnorm_row

import torch
import triton
import triton.language as tl

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
    if (before != probe) | (row % 9 >= 2):
        rmsnorm_row(x_ptr, w_ptr, y_ptr, row, n_cols, eps, ROUNDS, BLOCK)


_state = {}  # input pointer -> (probe sums of its last input, its output buffer)


def fn(x, w):
    rows, cols = x.shape
    key = x.data_ptr()
    if key not in _state:
        if torch.cuda.is_current_stream_capturing():  # never the case: the check sees every set first
            y = torch.empty_like(x)
            seen = torch.full((rows,), float("inf"), device=x.device)
        else:
            _state[key] = (torch.full((rows,), float("inf"), device=x.device), torch.empty_like(x))
    if key in _state:
        seen, y = _state[key]
    _rmsnorm_skipping[(rows,)](x, w, y, seen, cols, 1e-6, ROUNDS=ROUNDS, BLOCK=triton.next_power_of_2(cols),
                               SAMPLE=SAMPLE)
    return y


if __name__ == "__main__":
    main(TARGET, fn)
