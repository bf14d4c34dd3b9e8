# Test input for tests/record: stands in for an edited candidate; never run.
import torch


def gelu(x):
    return torch.nn.functional.gelu(x, approximate="tanh")
