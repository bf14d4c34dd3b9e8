# SPDX-License-Identifier: Apache-2.0
# A target whose definition is wrong (it rotates an input it does not have): the contract reports
# that in the line's "error" field instead of crashing.
from _hotkernel_contract import Input, Target, main


def fn(x):
    return x


TARGET = Target(name="bad", inputs=[Input("x", [8])], dtype="fp32", rotate=["nope"], device="cpu")

if __name__ == "__main__":
    main(TARGET, fn)
