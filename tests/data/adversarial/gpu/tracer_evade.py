# SPDX-License-Identifier: Apache-2.0
# Issue 19: keep hotkernel's GPU tracer out of the process by removing the injection variable
# before CUDA starts, so no witness can contradict the reported time. The baseline, started the
# same way, is witnessed. Expected: invalid.
import os

os.environ.pop("CUDA_INJECTION64_PATH", None)

from _hotkernel_contract import main  # noqa: E402
from rmsnorm_baseline import TARGET, fn  # noqa: E402

if __name__ == "__main__":
    main(TARGET, fn)
