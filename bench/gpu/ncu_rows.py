# SPDX-License-Identifier: Apache-2.0
"""Launches the rmsnorm and softmax row kernels of examples/tuned_kernels.py once per variant, for
ncu to time (run it under `ncu --clock-control none -k regex:_rmsnorm|_softmax`). Each variant
launches twice (the first call compiles); stderr says which launch is which variant.
"""
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/examples")
import tuned_kernels as tk  # noqa: E402

x = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16)
w = torch.randn(8192, device="cuda", dtype=torch.bfloat16)
launch = 0
for name, f in [("rmsnorm w8", lambda: tk.rmsnorm(x, w, num_warps=8)),
                ("rmsnorm w16", lambda: tk.rmsnorm(x, w, num_warps=16)),
                ("rmsnorm w32", lambda: tk.rmsnorm(x, w, num_warps=32)),
                ("softmax w8", lambda: tk.softmax(x, num_warps=8)),
                ("softmax w16", lambda: tk.softmax(x, num_warps=16)),
                ("softmax w32", lambda: tk.softmax(x, num_warps=32))]:
    for _ in range(2):
        f()
        torch.cuda.synchronize()
        print("launch %d: %s" % (launch, name), file=sys.stderr, flush=True)
        launch += 1
