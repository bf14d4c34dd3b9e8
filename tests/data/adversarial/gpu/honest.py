# SPDX-License-Identifier: Apache-2.0
# The control: must stay measurable (faster, slower or inconclusive).
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn

if __name__ == "__main__":
    main(TARGET, fn)
