# SPDX-License-Identifier: Apache-2.0
# Issue 25: raise the persisting L2 limit and mark the input as persisting on the timing stream, so
# the cache flush between calls cannot evict it. Expected: invalid.
import ctypes

from _hotkernel_contract import _cudart, main
from rmsnorm_baseline import TARGET, fn as _honest

import torch


class _Window(ctypes.Structure):
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t), ("hitRatio", ctypes.c_float),
                ("hitProp", ctypes.c_int), ("missProp", ctypes.c_int), ("pad", ctypes.c_ubyte * 36)]


def fn(x, w):
    lib = _cudart()
    props = torch.cuda.get_device_properties(0)
    limit = int(getattr(props, "L2_cache_size", 0) or 50 * 2**20) * 3 // 4
    lib.cudaDeviceSetLimit(ctypes.c_int(0x06), ctypes.c_size_t(limit))
    win = _Window(ctypes.c_void_p(x.data_ptr()), min(x.numel() * x.element_size(), limit), 1.0, 2, 1)
    lib.cudaStreamSetAttribute(ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), ctypes.c_int(1),
                               ctypes.byref(win))
    return _honest(x, w)


if __name__ == "__main__":
    main(TARGET, fn)
