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
    # Set up where the cheat works: on the eager calls (the first one before capture), never
    # inside the capture, where the driver refuses device-wide calls and the capture itself fails.
    if not torch.cuda.is_current_stream_capturing():
        _persist(x)
    return _honest(x, w)


def _persist(x):
    lib = _cudart()
    # 16 MiB: under every Hopper card's persisting maximum and access-policy window limit (a limit
    # above them fails with invalid argument, which torch then raises at its next launch).
    limit = 16 * 2**20
    lib.cudaDeviceSetLimit(ctypes.c_int(0x06), ctypes.c_size_t(limit))
    # The legacy default stream (handle 0), where the eager calls run, takes no attributes: the
    # window goes on any other stream the candidate's work runs on.
    stream = torch.cuda.current_stream().cuda_stream
    if stream:
        win = _Window(ctypes.c_void_p(x.data_ptr()), min(x.numel() * x.element_size(), limit), 1.0, 2, 1)
        lib.cudaStreamSetAttribute(ctypes.c_void_p(stream), ctypes.c_int(1), ctypes.byref(win))


if __name__ == "__main__":
    main(TARGET, fn)
