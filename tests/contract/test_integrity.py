# SPDX-License-Identifier: Apache-2.0
"""The contract's integrity snapshot (docs/contract.md, threat model): an honest process whose
trusted functions merely ran, and whose constants are now held elsewhere (the events timer's note
kept in a result line, say), shows no violation; a replaced function, or a function given another
function's code, does. Needs HOTKERNEL_SOURCE_DIR (or CONTRACT, a contract file) and a Python with
torch (this interpreter)."""
import importlib.util
import os
import sys


def load(path):
    spec = importlib.util.spec_from_file_location("_hotkernel_contract", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["_hotkernel_contract"] = module
    spec.loader.exec_module(module)
    return module


def main():
    path = os.environ.get("CONTRACT") or os.path.join(os.environ["HOTKERNEL_SOURCE_DIR"], "resources", "contract",
                                                      "_hotkernel_contract.py")
    c = load(path)
    failures = []
    if c._integrity_violations():
        failures.append("fresh import: %s" % c._integrity_violations())
    # Hold every constant of every trusted function's code, as a result line holding the timer
    # note does: the honest process must still look untouched.
    held = []
    for name, get in c._guarded():
        code = c._code_of(get())
        stack = [code] if code is not None else []
        while stack:
            co = stack.pop()
            for const in co.co_consts:
                held.append(const)
                if hasattr(const, "co_code"):
                    stack.append(const)
    if c._integrity_violations():
        failures.append("constants held elsewhere: %s" % c._integrity_violations())
    # A function given another function's code keeps its identity; the snapshot must see it.
    original = c._Bench.check.__code__
    c._Bench.check.__code__ = (lambda self, *a, **k: None).__code__
    if "contract _Bench.check" not in c._integrity_violations():
        failures.append("new __code__ on _Bench.check not seen: %s" % c._integrity_violations())
    c._Bench.check.__code__ = original
    saved = c._emit
    c._emit = lambda *a, **k: None
    if "contract _emit" not in c._integrity_violations():
        failures.append("replaced _emit not seen: %s" % c._integrity_violations())
    c._emit = saved
    if c._integrity_violations():
        failures.append("after restoring: %s" % c._integrity_violations())
    for f in failures:
        print("FAIL", f)
    print("held %d constants; %d failure(s)" % (len(held), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
