# SPDX-License-Identifier: Apache-2.0
"""A program that launches about 500 distinct GPU kernels (issue 44's context budget needs a real
profile that long): torch.compile of many small, different elementwise and reduction chains, each
of which Inductor turns into Triton kernels with names of their own, plus eager ops over several
dtypes. usage: python3 many_kernels.py [--functions 480]"""
import argparse

import torch

UNARY = [torch.sin, torch.cos, torch.exp, torch.tanh, torch.sigmoid, torch.relu, torch.abs, torch.sqrt,
         torch.log1p, torch.erf, torch.neg, torch.square]
REDUCE = [lambda t: t.sum(-1, keepdim=True), lambda t: t.amax(-1, keepdim=True),
          lambda t: t.mean(-1, keepdim=True), None]


def chain(i):
    """The i-th function: three unary ops, a scale and maybe a reduction, a combination of its own."""
    ops = [UNARY[(i * 7 + k * 5) % len(UNARY)] for k in range(3)]
    reduce = REDUCE[(i // len(UNARY)) % len(REDUCE)]
    scale = 1.0 + i / 1000.0

    def fn(x):
        y = x
        for op in ops:
            y = op(y.abs() + 1e-3)
        y = y * scale
        return y - reduce(y) if reduce else y
    return fn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--functions", type=int, default=480)
    args = parser.parse_args()
    torch._dynamo.config.cache_size_limit = 4 * args.functions
    x = torch.randn(256, 1024, device="cuda")
    for i in range(args.functions):
        torch.compile(chain(i), dynamic=False)(x + i)
    for dtype in (torch.float32, torch.bfloat16, torch.float16):  # eager kernels, per dtype
        y = x.to(dtype)
        (y.softmax(-1) @ y.T).relu().sum().item()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
