"""Candidate for target gemv: only fn lives here; the definition is gemv_baseline.TARGET.

It starts as the baseline. Make fn faster, keep its parameters and its outputs (shape, dtype);
then: hotkernel verify gemv_baseline.py gemv_candidate.py
"""
from _hotkernel_contract import load_function, main  # first: keeps stdout for the protocol
from gemv_baseline import TARGET

from torch import mv as baseline_impl


def fn(w, x):
    # Replace this body with the faster kernel.
    return baseline_impl(w, x)


if __name__ == "__main__":
    main(TARGET, fn)
