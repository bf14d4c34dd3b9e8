"""Candidate for target rmsnorm: only fn lives here; the definition is rmsnorm_baseline.TARGET.

It starts as the baseline. Make fn faster, keep its parameters and its outputs (shape, dtype);
then: hotkernel verify rmsnorm_baseline.py rmsnorm_candidate.py
"""
from _hotkernel_contract import load_function, main  # first: keeps stdout for the protocol
from rmsnorm_baseline import TARGET

baseline_impl = load_function("./kernels.py:rmsnorm", __file__)


def fn(x, w):
    # Replace this body with the faster kernel.
    return baseline_impl(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
