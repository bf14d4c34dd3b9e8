# SPDX-License-Identifier: Apache-2.0
# Fixture source: torch.profiler over eager rmsnorm/softmax/gemv; writes the raw
# key_averages (with input shapes) as JSON and the profiler's own table as text.
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile

out_dir = sys.argv[1]
x = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16)
w = torch.randn(8192, device="cuda", dtype=torch.bfloat16)
m = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)


def step():
    y = x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype) * w
    s = torch.softmax(x, dim=-1)
    v = torch.mv(m, w)
    return y, s, v


step()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
    for _ in range(3):
        step()
    torch.cuda.synchronize()

with open(f"{out_dir}/torch-profiler-table.txt", "w") as f:
    f.write(prof.key_averages(group_by_input_shape=True).table(sort_by="device_time_total", row_limit=40))
events = []
for e in prof.key_averages(group_by_input_shape=True):
    events.append({
        "key": e.key,
        "count": e.count,
        "device_type": str(e.device_type),
        "device_time_total_us": getattr(e, "device_time_total", getattr(e, "cuda_time_total", 0)),
        "self_device_time_total_us": getattr(e, "self_device_time_total", getattr(e, "self_cuda_time_total", 0)),
        "cpu_time_total_us": e.cpu_time_total,
        "input_shapes": e.input_shapes,
    })
with open(f"{out_dir}/torch-profiler-key-averages.json", "w") as f:
    json.dump({"torch": torch.__version__, "events": events}, f, indent=1)
prof.export_chrome_trace(f"{out_dir}/torch-profiler-trace.json")
