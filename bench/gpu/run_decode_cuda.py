# SPDX-License-Identifier: Apache-2.0
"""Runs the CUDA C++ decode attention a few times on the target's shape, for a profiler:
    ncu ... python3 bench/gpu/run_decode_cuda.py '{"warps":8,"stages":2,"chunks":16,"order":"interleaved"}'
With a sweep JSON from check_decode_cuda.py instead of a configuration, it takes the fastest correct one."""
import json
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/examples")
import decode_attention_cuda as dac  # noqa: E402

arg = sys.argv[1]
if arg.endswith(".json"):
    rows = [r for r in json.load(open(arg)) if r["ok"] and r["variant"].startswith("cuda ")]
    arg = min(rows, key=lambda r: r["us"])["variant"][len("cuda "):]
cfg = json.loads(arg)
print("config", cfg, flush=True)
q = torch.randn(1, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(1, 8, 32768, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn(1, 8, 32768, 128, device="cuda", dtype=torch.bfloat16)
for _ in range(5):
    dac.decode_attention_cuda(q, k, v, cfg)
torch.cuda.synchronize()
