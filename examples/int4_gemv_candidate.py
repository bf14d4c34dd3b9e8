"""Candidate for target int4_gemv: only fn lives here; the definition is int4_gemv_baseline.TARGET.

It starts as the baseline. Make fn faster, keep its parameters and its outputs (shape, dtype);
then: hotkernel verify int4_gemv_baseline.py int4_gemv_candidate.py
"""
from _hotkernel_contract import load_function, main  # first: keeps stdout for the protocol
from int4_gemv_baseline import TARGET

baseline_impl = load_function("./kernels.py:int4_gemv", __file__)


def fn(x, w_int4pack, scales_zeros, w_nibbles):
    # Replace this body with the faster kernel.
    return baseline_impl(x, w_int4pack, scales_zeros, w_nibbles)


if __name__ == "__main__":
    main(TARGET, fn)
