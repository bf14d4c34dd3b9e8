#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Makes the five example targets again with `hotkernel new` (the exact commands README.md lists).
# usage: examples/regenerate.sh [path/to/hotkernel]   (default: build/release/app/hotkernel)
# The import check needs a Python with torch: HOTKERNEL_PYTHON, else the first one on PATH. CPU
# torch is enough to write the scripts; running them needs the H200 (torch 2.11 CUDA).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
hotkernel=$(realpath "${1:-$here/../build/release/app/hotkernel}")
cd "$here"

# rmsnorm 4096x8192 bf16, eager baseline of our own (kernels.py).
# flops: 4 per element (square, sum, scale by rsqrt, scale by w) = 4 * 4096 * 8192.
"$hotkernel" new rmsnorm --from ./kernels.py:rmsnorm --shape 4096x8192 --extra w:8192 --rotate x \
    --flops 134217728 --dtype bf16 --force

# softmax 4096x8192 bf16 over the last dimension (torch.softmax, dim=-1).
# flops: 5 per element (max, subtract, exp, sum, divide) = 5 * 4096 * 8192.
# atol 1e-5: outputs average 1/8192 = 1.2e-4, so the bf16 default of 1e-2 would pass all zeros.
"$hotkernel" new softmax --from ./kernels.py:softmax --shape 4096x8192 --rotate x \
    --flops 167772160 --atol 1e-5 --dtype bf16 --force

# gemv 8192x8192 bf16: torch.mv(w, x), the 128 MiB matrix rotated, the vector shared.
# flops: 2 * 8192 * 8192 (a multiply and an add per weight).
"$hotkernel" new gemv --from torch:mv --shape w=8192x8192 --extra x:8192 --rotate w \
    --flops 134217728 --dtype bf16 --force

# decode attention: 1 query token, 32K context, GQA 32 query / 8 KV heads, d=128, bf16; SDPA baseline,
# fp32 reference of its own. K and V (64 MiB each) rotate.
# flops: the two matmuls, 2 * 32 heads * 32768 * 128 each = 536870912 (softmax's 5 * 32 * 32768 left out).
# atol 5e-4: outputs are averages of 32K values (std about 0.009), so the default 1e-2 would pass zeros;
#   a flash-style bf16 emulation on CPU stayed within 1.2e-4.
"$hotkernel" new decode_attention --from ./kernels.py:decode_attention \
    --reference ./kernels.py:decode_attention_reference \
    --shape q=1x32x1x128 --extra k:1x8x32768x128,v:1x8x32768x128 --rotate k,v \
    --flops 536870912 --atol 5e-4 --dtype bf16 --force

# int4 GEMV 8192x8192, group 128: raw bf16 weights quantised by kernels.int4_derive; baseline
# torch._weight_int4pack_mm (tinygemm), fp32 reference dequantising the plain nibbles.
# flops: 2 * 8192 * 8192 (dequantisation arithmetic not counted).
# min_bytes: what one call must read: packed weights 8192 * 8192 / 2 = 33554432, scales and zeros
#   64 groups * 8192 * 2 * 2 B = 2097152, x 8192 * 2 B = 16384; total 35667968 (w_nibbles, a second
#   copy of the weights for other kernels, is not counted). The output (16 KiB) is added by the contract.
# atol 1.5: rounding dequantised weights to bf16 (as tinygemm does) moves each 8192-term dot product
#   (|out| about 70 on average) by 0.15 (std), 0.62 at most, in a CPU emulation of this shape.
"$hotkernel" new int4_gemv --from ./kernels.py:int4_gemv --shape w=8192x8192 --extra x:1x8192 \
    --derive ./kernels.py:int4_derive --inputs x,w_int4pack,scales_zeros,w_nibbles \
    --reference ./kernels.py:int4_gemv_reference --rotate w_int4pack,scales_zeros,w_nibbles \
    --min-bytes 35667968 --flops 134217728 --atol 1.5 --dtype bf16 --force
