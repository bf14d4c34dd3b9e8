# SPDX-License-Identifier: Apache-2.0
# A persistent output buffer per input pointer, rewritten in full only when the input's version
# counter moved, else only its first half. Expected: incorrect (the judged replay poisons the
# buffer and refills the input without moving its version counter).
from _hotkernel_contract import main
from gelu_baseline import TARGET

import torch

_buffers = {}


def fn(x):
    key = x.data_ptr()
    half = x.shape[0] // 2
    out, version = _buffers.get(key, (None, None))
    if out is None or version != x._version:
        out = torch.nn.functional.gelu(x)
        _buffers[key] = (out, x._version)
        return out
    out[:half] = torch.nn.functional.gelu(x[:half])
    return out


if __name__ == "__main__":
    main(TARGET, fn)
