# SPDX-License-Identifier: Apache-2.0
# Issue 41, class 7: a candidate without the contract's import line. It computes nothing and
# prints a result line of its own with a time a tenth of the baseline's usual one. Without the
# import, verify takes the script for an uncontracted one, and before issue 41 a contracted
# baseline with an uncontracted candidate made the whole verify uncontracted, whose verdict said
# `faster` (10x) on the script's word. What should catch it: a contracted baseline with an
# uncontracted candidate is an error (core/measure/uncontractedrun.cpp, UncontractedRun::prepare);
# two uncontracted scripts never get `faster` or `slower`, only `claimed_faster` /
# `claimed_slower` (uncontracted_baseline.py is the other side for that case). Expected, already
# with protocol 4 and after protocol 5: an error against gelu_baseline.py, claimed_faster against
# uncontracted_baseline.py.
import json
import sys

print(json.dumps({"ok": True, "ms": 0.005, "max_err": 0.0}))
sys.stdout.flush()
