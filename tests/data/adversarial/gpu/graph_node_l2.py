# SPDX-License-Identifier: Apache-2.0
# Issue 25: mark the input as persisting in L2 only while the timed block is being captured, and
# take the window off the stream again before returning, so that after capture the stream looks
# clean and only the captured kernel nodes carry the window. Expected: invalid.
import ctypes

from _hotkernel_contract import _cudart, main
from rmsnorm_baseline import TARGET, fn as _honest

import torch


class _Window(ctypes.Structure):
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t), ("hitRatio", ctypes.c_float),
                ("hitProp", ctypes.c_int), ("missProp", ctypes.c_int), ("pad", ctypes.c_ubyte * 36)]


_LIMIT = 16 * 2**20


def fn(x, w):
    lib = _cudart()
    if not torch.cuda.is_current_stream_capturing():
        # Device-wide calls are refused during capture: the set-aside is made on the eager calls.
        lib.cudaDeviceSetLimit(ctypes.c_int(0x06), ctypes.c_size_t(_LIMIT))
        return _honest(x, w)
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    window = _Window(ctypes.c_void_p(x.data_ptr()), min(x.numel() * x.element_size(), _LIMIT), 1.0, 2, 1)
    lib.cudaStreamSetAttribute(stream, ctypes.c_int(1), ctypes.byref(window))
    out = _honest(x, w)
    lib.cudaStreamSetAttribute(stream, ctypes.c_int(1), ctypes.byref(_Window()))
    return out


if __name__ == "__main__":
    main(TARGET, fn)
