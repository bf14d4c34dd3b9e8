# SPDX-License-Identifier: Apache-2.0
"""The main of the end-to-end MCP scripts: runs each (title, case) in a fresh temporary folder,
sync or async, reports PASSED/FAILED per case and exits non-zero when any failed. Arguments on
the command line pick the cases whose title contains one of them."""
import inspect
import os
import sys
import tempfile
import time
import traceback

import anyio


def run_cases(cases, prefix, realpath=False):
    only = sys.argv[1:]
    failed = []
    for title, case in cases:
        if only and not any(o in title for o in only):
            continue
        with tempfile.TemporaryDirectory(prefix=prefix) as workdir:
            if realpath:
                workdir = os.path.realpath(workdir)
            start = time.monotonic()
            try:
                if inspect.iscoroutinefunction(case):
                    anyio.run(case, workdir)
                else:
                    case(workdir)
                print(f"PASSED  {title} ({time.monotonic() - start:.1f}s)", flush=True)
            except BaseException as e:  # noqa: BLE001 - report every failure and go on
                failed.append(title)
                leaf = e
                while isinstance(leaf, BaseExceptionGroup) and leaf.exceptions:
                    leaf = leaf.exceptions[0]  # the SDK's task groups wrap the assertion
                print(f"FAILED  {title} ({time.monotonic() - start:.1f}s): {type(leaf).__name__}: {leaf}", flush=True)
                traceback.print_exception(leaf)
    total = len([c for c in cases if not only or any(o in c[0] for o in only)])
    print(f"\n{total - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)
