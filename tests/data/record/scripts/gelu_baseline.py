# Test input for tests/record: stands in for a baseline made by `hotkernel new`; never run.
import torch


def gelu(x):
    return torch.nn.functional.gelu(x)
