"""Candidate for target softmax: only fn lives here; the definition is softmax_baseline.TARGET.

It starts as the baseline. Make fn faster, keep its parameters and its outputs (shape, dtype);
then: hotkernel verify softmax_baseline.py softmax_candidate.py
"""
from _hotkernel_contract import load_function, main  # first: keeps stdout for the protocol
from softmax_baseline import TARGET

baseline_impl = load_function("./kernels.py:softmax", __file__)


def fn(x):
    # Replace this body with the faster kernel.
    return baseline_impl(x)


if __name__ == "__main__":
    main(TARGET, fn)
