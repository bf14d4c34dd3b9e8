# SPDX-License-Identifier: Apache-2.0
# Issue 41's control: an honest candidate that writes where a compiler would (a temp file through
# TMPDIR, the Triton and Inductor cache variables, XDG_CACHE_HOME, the examples' cubin cache) and imports a module of its own
# (bytecode through PYTHONPYCACHEPREFIX). Expected: a normal verdict, confined.
import os
import tempfile

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

for variable in ("TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR", "XDG_CACHE_HOME", "CUDA_CACHE_PATH",
                 "HOTKERNEL_CUBIN_CACHE"):
    folder = os.environ.get(variable)
    if folder:
        os.makedirs(os.path.join(folder, "honest"), exist_ok=True)
        with open(os.path.join(folder, "honest", "entry"), "w") as f:
            f.write("cache entry\n")
with tempfile.NamedTemporaryFile("w", delete=True) as scratch:
    scratch.write("scratch\n")
    scratch.flush()


def fn(x):
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
