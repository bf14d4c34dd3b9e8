# SPDX-License-Identifier: Apache-2.0
# Issue 41: the candidate asks hotkernel itself to calibrate and record (its child inherits the
# worker's confinement, and a session refuses calls from a worker's tree). Against the overstated
# target, so a calibration that got through could only have helped. Expected: invalid by the floor,
# and no results/ folder beside the target.
import os
import shutil
import subprocess
import sys

from _hotkernel_contract import main
from overstated_baseline import TARGET, fn as _honest

_tried = []


def fn(x, w):
    if not _tried:
        _tried.append(True)
        binary = os.environ.get("HOTKERNEL_BINARY") or shutil.which("hotkernel")
        if binary:
            try:
                done = subprocess.run([binary, "calibrate", "--record"], capture_output=True, text=True,
                                      timeout=600, cwd=os.path.dirname(os.path.abspath(__file__)))
                sys.stderr.write("calibrate_run: exit %d: %s\n" % (done.returncode, done.stderr[-300:]))
            except (OSError, subprocess.SubprocessError) as e:
                sys.stderr.write("calibrate_run: %s\n" % e)
    return _honest(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
