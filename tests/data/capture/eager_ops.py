# SPDX-License-Identifier: Apache-2.0
# Fixture source: eager PyTorch rmsnorm, softmax and a gemv, so ncu and torch.profiler
# see several library kernels with long templated names.
import torch

x = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16)
w = torch.randn(8192, device="cuda", dtype=torch.bfloat16)
m = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(2):
    y = x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype) * w
    s = torch.softmax(x, dim=-1)
    v = torch.mv(m, w)
torch.cuda.synchronize()
print("done", y.shape, s.shape, v.shape)
