# SPDX-License-Identifier: Apache-2.0
# Issue 19: the candidate never imports torch or the contract. It starts the honest baseline as a
# child worker, relays the requests to it, and passes its result lines on with the times divided
# by 10. The child's lines are genuine (its judged inputs, its contract, its witness), so only the
# GPU's witness of the child's block shows the times are not the block's. Expected: invalid.
import json
import os
import subprocess
import sys
import threading

if False:  # only for hotkernel's scan, which takes a script importing the contract as contracted
    from _hotkernel_contract import main  # noqa: F401

here = os.path.dirname(os.path.abspath(__file__))
child = subprocess.Popen([sys.executable, os.path.join(here, "rmsnorm_baseline.py")] + sys.argv[1:],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _relay_requests():
    for request in sys.stdin:
        child.stdin.write(request)
        child.stdin.flush()
    child.stdin.close()


threading.Thread(target=_relay_requests, daemon=True).start()
for text in child.stdout:
    try:
        line = json.loads(text)
    except ValueError:
        line = None
    if isinstance(line, dict) and isinstance(line.get("ms"), float):
        line["ms"] /= 10
        line["samples_ms"] = [s / 10 for s in line.get("samples_ms") or []]
        text = json.dumps(line) + "\n"
    sys.stdout.write(text)
    sys.stdout.flush()
sys.exit(child.wait())
