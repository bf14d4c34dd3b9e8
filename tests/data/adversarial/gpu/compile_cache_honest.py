# SPDX-License-Identifier: Apache-2.0
# Issue 41's GPU control: torch.compile of the baseline's function. Inductor writes its generated
# code and Triton kernels (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR, TMPDIR: all in the worker's
# scratch) while the worker is confined. Expected: a measured verdict, the candidate confined.
from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn as _eager

import torch

fn = torch.compile(_eager)

if __name__ == "__main__":
    main(TARGET, fn)
