"""Candidate for target decode_attention: only fn lives here; the definition is decode_attention_baseline.TARGET.

It starts as the baseline. Make fn faster, keep its parameters and its outputs (shape, dtype);
then: hotkernel verify decode_attention_baseline.py decode_attention_candidate.py
"""
from _hotkernel_contract import load_function, main  # first: keeps stdout for the protocol
from decode_attention_baseline import TARGET

baseline_impl = load_function("./kernels.py:decode_attention", __file__)


def fn(q, k, v):
    # Replace this body with the faster kernel.
    return baseline_impl(q, k, v)


if __name__ == "__main__":
    main(TARGET, fn)
