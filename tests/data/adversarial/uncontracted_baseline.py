# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 7's other side: an uncontracted baseline (no contract import) that times its
# own gelu and prints {"ok", "ms"}, the way generic scripts outside the contract do. Not a
# candidate: uncontracted_claim.py is verified against it (tests/contract/test_adversarial.py).
import json
import time

import torch

x = torch.randn(256, 512)
for _ in range(3):
    torch.nn.functional.gelu(x)
start = time.perf_counter()
for _ in range(50):
    torch.nn.functional.gelu(x)
print(json.dumps({"ok": True, "ms": (time.perf_counter() - start) * 1e3 / 50}))
