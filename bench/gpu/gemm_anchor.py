# SPDX-License-Identifier: Apache-2.0
"""torch.matmul bf16 8192^3 under two timing regimes (a short block once, and calibrate's 20 calls x 7),
to tell a power-limited sustained rate from a short-burst one. Prints TFLOP/s per block."""
import torch

n = 8192
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
flops = 2 * n ** 3
for _ in range(3):
    a @ b
torch.cuda.synchronize()
for label, iters, repeats in (("short: 10 calls x 1", 10, 1), ("calibrate-like: 20 calls x 7", 20, 7),
                              ("long: 100 calls x 3", 100, 3)):
    rates = []
    for _ in range(repeats):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(iters):
            a @ b
        e.record()
        e.synchronize()
        rates.append(flops * iters / (s.elapsed_time(e) * 1e-3) / 1e12)
    print("%-32s %s TFLOP/s" % (label, " ".join("%.0f" % r for r in rates)), flush=True)
