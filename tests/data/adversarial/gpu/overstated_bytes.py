# SPDX-License-Identifier: Apache-2.0
# The honest candidate for overstated_baseline.py: same kernel, same overstated target. Expected:
# invalid, by the physical floor (issue 25).
from _hotkernel_contract import main
from overstated_baseline import TARGET, fn

if __name__ == "__main__":
    main(TARGET, fn)
