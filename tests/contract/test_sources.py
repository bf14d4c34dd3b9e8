# SPDX-License-Identifier: Apache-2.0
"""The contract's "sources" (docs/contract.md, "Stale workers"): which files a worker names as the
user's, and that a file changed after the contract's import is reported null ("cannot vouch"), since
its bytes on disk may no longer be what was imported. Needs HOTKERNEL_SOURCE_DIR; no torch."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

# Imports a sibling, a package module and (through PYTHONPATH) a module of another folder, plus
# stdlib modules; then rewrites `touched.py` after importing it, as an editor saving mid-start would.
SCRIPT = '''import _hotkernel_contract as c
import json, os, sys, time, decimal
import sibling
from pkg import inner
import elsewhere_mod
import touched
with open(touched.__file__, "a") as f:
    f.write("# saved after the import\\n")
c._emit({"sources": c._user_sources(), "again": c._user_sources()})
'''


def main():
    source = os.environ["HOTKERNEL_SOURCE_DIR"]
    failures = []
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as other:
        shutil.copy(os.path.join(source, "resources", "contract", "_hotkernel_contract.py"), tmp)
        files = {"script.py": SCRIPT, "sibling.py": "A = 1\n", "pkg/__init__.py": "", "pkg/inner.py": "B = 2\n",
                 "touched.py": "C = 3\n"}
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        with open(os.path.join(other, "elsewhere_mod.py"), "w") as f:
            f.write("D = 4\n")
        env = dict(os.environ, PYTHONPATH=other, PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run([sys.executable, "script.py", "--check-import"], cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=120)
        lines = [l for l in proc.stdout.splitlines() if l.strip()]
        if proc.returncode != 0 or len(lines) != 1:
            raise AssertionError("script.py: exit %d, stdout %r, stderr %s" % (proc.returncode, proc.stdout,
                                                                             proc.stderr[-800:]))
        got = json.loads(lines[0])

        def sha(path):
            with open(path, "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()

        expected = {os.path.join(tmp, n): sha(os.path.join(tmp, n))
                    for n in ("script.py", "_hotkernel_contract.py", "sibling.py", "pkg/__init__.py", "pkg/inner.py")}
        expected[os.path.join(other, "elsewhere_mod.py")] = sha(os.path.join(other, "elsewhere_mod.py"))
        expected[os.path.join(tmp, "touched.py")] = None
        for key in ("sources", "again"):
            if got[key] != expected:
                failures.append("%s: %s\n  expected %s" % (key, json.dumps(got[key], indent=1, sort_keys=True),
                                                          json.dumps(expected, indent=1, sort_keys=True)))
        stdlib = [p for p in got["sources"] if "decimal" in p or p.endswith("/json/__init__.py")]
        if stdlib:
            failures.append("stdlib files reported as the user's: %s" % stdlib)
        print("sources: %d user files, touched.py null" % len(got["sources"]))
    if failures:
        print("\n".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
