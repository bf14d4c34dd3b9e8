# SPDX-License-Identifier: Apache-2.0
import sys

sys.dont_write_bytecode = True
from fakecontract import main  # noqa: E402

main(__file__)
