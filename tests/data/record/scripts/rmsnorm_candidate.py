# Test input for tests/record: stands in for an edited candidate; never run.
import torch


def rmsnorm(x, w):
    return (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w
