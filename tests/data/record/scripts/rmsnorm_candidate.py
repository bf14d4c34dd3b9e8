# Test input for tests/record: stands in for an edited candidate; never run.
from _hotkernel_contract import main  # as `hotkernel new` writes it (never run here)
import torch


def rmsnorm(x, w):
    return (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w
