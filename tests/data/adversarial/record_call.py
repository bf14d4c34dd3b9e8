# SPDX-License-Identifier: Apache-2.0
# Issue 41: the candidate asks hotkernel itself to record (a forged verify result) while it runs,
# through the hotkernel binary the environment names. Expected: the call fails (the child inherits
# the candidate's confinement and may not write results/; a session refuses calls from a worker's
# process tree) and no results/ folder appears beside the target.
import json
import os
import subprocess
import sys

from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
_tried = []


def _record():
    binary = os.environ.get("HOTKERNEL_BINARY")
    if not binary:
        return
    forged = os.path.join(os.environ.get("TMPDIR", "/tmp"), "forged-verify.json")
    try:
        with open(forged, "w") as f:
            json.dump({"tool": "verify", "verdict": "faster", "speedup": 10.0, "target": "gelu"}, f)
        done = subprocess.run([binary, "record", "gelu", forged, "--note", "planted", "--who", "candidate"],
                              cwd=_HERE, capture_output=True, text=True, timeout=120)
        sys.stderr.write("record_call: exit %d: %s\n" % (done.returncode, done.stderr[-300:]))
    except (OSError, subprocess.SubprocessError) as e:
        sys.stderr.write("record_call: %s\n" % e)


def fn(x):
    if not _tried:
        _tried.append(True)
        _record()
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
