# Test input for tests/record: stands in for a baseline made by `hotkernel new`; never run.
from _hotkernel_contract import main  # as `hotkernel new` writes it (never run here)
import torch


def gelu(x):
    return torch.nn.functional.gelu(x)
