# A few kernels of different kinds: GEMM (cuBLAS), softmax, layer norm, an elementwise op.
import torch
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    y = x @ w
    z = torch.softmax(y.float(), dim=-1)
    n = torch.nn.functional.layer_norm(z, (4096,))
    q = n * 2.0 + 1.0
torch.cuda.synchronize()
import os, sys, time
open(sys.argv[1], "w").close()  # tells the script to capture nvidia-smi apps now
time.sleep(3)
print("torch", torch.__version__, "cuda", torch.version.cuda, float(q.sum()))
