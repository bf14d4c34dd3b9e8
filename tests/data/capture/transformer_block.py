# SPDX-License-Identifier: Apache-2.0
"""A small transformer nobody tuned: pre-norm blocks (layer_norm, linear, SDPA, gelu tanh), bf16,
random weights. The program issue 21's journey starts from (bench/journey.sh) and the source of the
execution-trace and ncu captures in tests/data/inspect/ (CAPTURE.md).

python transformer_block.py [--steps N] [--layers L]
"""
import argparse

import torch
import torch.nn.functional as F


def make_layer(d, hidden, device, dtype):
    def w(*shape):
        return torch.randn(*shape, device=device, dtype=dtype) / shape[-1] ** 0.5

    return {
        "ln1_w": torch.ones(d, device=device, dtype=dtype), "ln1_b": torch.zeros(d, device=device, dtype=dtype),
        "qkv": w(3 * d, d), "proj": w(d, d),
        "ln2_w": torch.ones(d, device=device, dtype=dtype), "ln2_b": torch.zeros(d, device=device, dtype=dtype),
        "up": w(hidden, d), "up_b": torch.zeros(hidden, device=device, dtype=dtype), "down": w(d, hidden),
    }


def block(x, p, heads):
    b, s, d = x.shape
    h = F.layer_norm(x, (d,), p["ln1_w"], p["ln1_b"], eps=1e-5)
    q, k, v = F.linear(h, p["qkv"]).view(b, s, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    x = x + F.linear(a.transpose(1, 2).reshape(b, s, d), p["proj"])
    h = F.layer_norm(x, (d,), p["ln2_w"], p["ln2_b"], eps=1e-5)
    h = F.gelu(F.linear(h, p["up"], p["up_b"]), approximate="tanh")
    return x + F.linear(h, p["down"])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--dim", type=int, default=1024)
    parser.add_argument("--heads", type=int, default=16)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16
    torch.manual_seed(0)
    layers = [make_layer(args.dim, 4 * args.dim, device, dtype) for _ in range(args.layers)]
    x = torch.randn(args.batch, args.seq, args.dim, device=device, dtype=dtype)
    with torch.no_grad():
        for _ in range(args.steps):
            y = x
            for p in layers:
                y = block(y, p, args.heads)
    if device == "cuda":
        torch.cuda.synchronize()
    print("output", tuple(y.shape), float(y.float().abs().mean()))


if __name__ == "__main__":
    main()
