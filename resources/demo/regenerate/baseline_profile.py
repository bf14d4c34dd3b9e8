# SPDX-License-Identifier: Apache-2.0
"""Calls the demo's rmsnorm baseline (kernels.py:rmsnorm on the target's shapes) with its inputs made
before the profiled range, so that `ncu --profile-from-start off` sees the target's kernels only,
not the input generator's random-number kernel.

    ncu --profile-from-start off ... python3 baseline_profile.py CALLS
"""
import importlib.util
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
# kernels.py of the demo: beside this script when copied to the GPU machine, else one folder up.
path = os.path.join(here, "kernels.py")
if not os.path.exists(path):
    path = os.path.join(here, "..", "kernels.py")
spec = importlib.util.spec_from_file_location("kernels", path)
kernels = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kernels)

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1
torch.manual_seed(0)
x = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16)  # the target's shapes (rmsnorm_baseline.py)
w = torch.randn(8192, device="cuda", dtype=torch.bfloat16)
for _ in range(3):  # warm-up outside the range too
    kernels.rmsnorm(x, w)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for _ in range(calls):
    kernels.rmsnorm(x, w)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
print("called rmsnorm", calls, "times on", torch.cuda.get_device_name(), "torch", torch.__version__)
