# SPDX-License-Identifier: Apache-2.0
# Truncates the judged-outputs file it has just written, before the core and the judge read it: it
# wraps sys.stdin, learns the judge directory from the run request and, when the worker asks for
# the next request (right after printing its line), cuts every file there to 10 bytes.
# Expected: invalid (a truncated judged-outputs file).
import json
import os
import sys

from _hotkernel_contract import main
from rmsnorm_baseline import TARGET, fn


class _Spy:
    def __init__(self, inner):
        self.inner = inner
        self.judge_dir = None

    def readline(self):
        if self.judge_dir and os.path.isdir(self.judge_dir):
            for name in os.listdir(self.judge_dir):
                with open(os.path.join(self.judge_dir, name), "r+b") as f:
                    f.truncate(10)
        raw = self.inner.readline()
        try:
            self.judge_dir = json.loads(raw).get("judge_dir") or self.judge_dir
        except (ValueError, AttributeError):
            pass
        return raw

    def __getattr__(self, name):
        return getattr(self.inner, name)


sys.stdin = _Spy(sys.stdin)


if __name__ == "__main__":
    main(TARGET, fn)
