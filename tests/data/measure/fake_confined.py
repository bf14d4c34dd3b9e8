# SPDX-License-Identifier: Apache-2.0
# Issue 41 on a remote host (tst_remoteconfine): before it speaks the contract, the worker plants
# a file where HOTKERNEL_TEST_PLANT says (outside its scratch: the write must be refused) and writes
# one in its TMPDIR (inside: the write must work, else it exits and the test sees a dead worker).
import os
import sys

sys.dont_write_bytecode = True
from fakecontract import main  # noqa: E402

_plant = os.environ.get("HOTKERNEL_TEST_PLANT")
if _plant:
    try:
        with open(_plant, "w") as f:
            f.write("planted\n")
        sys.stderr.write("fake_confined: planted %s\n" % _plant)
    except OSError as e:
        sys.stderr.write("fake_confined: refused: %s\n" % e)
with open(os.path.join(os.environ["TMPDIR"], "inside.txt"), "w") as f:
    f.write("the scratch is writable\n")

main(__file__)
