# SPDX-License-Identifier: Apache-2.0
# A tiny bf16 target with two outputs: the judged-outputs file next to it (run-1.judged) was written
# by the contract of this tree with
#   cp ../../../../resources/contract/_hotkernel_contract.py . && \
#   /usr/bin/python3 pair_baseline.py --run 1 --judge-seed 12345 --judge-dir . && rm _hotkernel_contract.py
# and run-1-cuda-ipc.judged the same way on the GPU machine (H100, torch 2.11) with device="cuda",
# by the protocol-5 contract (2026-12-07): a header only, each output named by its CUDA IPC
# handle. A process that is not a worker exits before any judge could open its memory, so that
# command writes the file transport; a worker, `pair_baseline.py --worker` with a run request,
# writes this one.
from _hotkernel_contract import Input, Target, main

import torch

TARGET = Target("pair", inputs=[Input("x", [4, 8]), Input("w", [8])], dtype="bf16", iters=3, device="cpu")


def fn(x, w):
    return x * w, x + 1


if __name__ == "__main__":
    main(TARGET, fn)
