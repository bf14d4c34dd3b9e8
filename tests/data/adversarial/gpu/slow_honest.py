# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 8's honest control: the slow Triton baseline's own fn as the candidate. Expected:
# a measured verdict (inconclusive, or faster or slower within noise), never invalid.
from _hotkernel_contract import main
from rmsnorm_slow_baseline import TARGET, fn

if __name__ == "__main__":
    main(TARGET, fn)
