# SPDX-License-Identifier: Apache-2.0
# A baseline given as ./file.py:function to `hotkernel new`.
def scale_add(x, w):
    return x * 2 + w
