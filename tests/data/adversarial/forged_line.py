# SPDX-License-Identifier: Apache-2.0
# Attack 6: never imports torch or the contract. It borrows the identity fields from one honest
# baseline line and answers every request with them and a tiny time. Expected: invalid (its
# judge_inputs_sha256 cannot match the baseline's for a judge seed chosen at run time).
# The import below is never executed: it only makes hotkernel treat this file as a contracted script.
if False:
    from _hotkernel_contract import main  # noqa: F401
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
honest = subprocess.run([sys.executable, os.path.join(here, "gelu_baseline.py"), "--run", "0"],
                        capture_output=True, text=True).stdout.strip().splitlines()[-1]
template = json.loads(honest)
template.update({"ms": 1e-6, "samples_ms": [1e-6] * 5, "ok": True, "invalid": None})


def line(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


if "--worker" not in sys.argv:
    line(template)
    sys.exit(0)
ready = {k: v for k, v in template.items() if k not in ("ok", "ms", "samples_ms", "run", "mismatch", "max_err")}
ready.update({"event": "ready", "pid": os.getpid()})
line(ready)
for raw in sys.stdin:
    request = json.loads(raw)
    if request.get("op") == "quit":
        break
    answer = dict(template)
    answer.update({"run": request["run"], "judge_seed": request.get("judge_seed")})
    line(answer)
