# SPDX-License-Identifier: Apache-2.0
# A correct candidate that writes to stdout in every way it can after importing the contract (as the
# generated scripts do first): only the protocol line may reach stdout.
import os
import sys

from _hotkernel_contract import main  # noqa: E402
from gelu_baseline import TARGET  # noqa: E402

import torch  # noqa: E402

print("noise at import")
os.write(1, b"raw noise on fd 1\n")


def fn(x):
    print("noise in fn")
    sys.stdout.write("more noise\n")
    os.write(1, b"raw noise in fn\n")
    return torch.nn.functional.gelu(x)


if __name__ == "__main__":
    main(TARGET, fn)
