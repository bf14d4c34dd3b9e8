"""Target gemv: the function to beat and the target definition (made by `hotkernel new`).

python gemv_baseline.py [--run I] [--device cuda|cpu] prints one JSON result line; --worker serves runs on stdin;
--check-import only imports. Made with:
    hotkernel new gemv --from torch:mv --shape w=8192x8192 --extra x:8192 --rotate w --flops 134217728 --dtype bf16
"""
from _hotkernel_contract import Input, Target, load_function, main  # first: keeps stdout for the protocol

from torch import mv as baseline_impl


def fn(w, x):
    return baseline_impl(w, x)


TARGET = Target(
    name="gemv",
    inputs=[Input("w", [8192, 8192]), Input("x", [8192])],
    dtype="bf16",
    seed=0,
    iters=50,
    rotate=["w"],  # None: the first input (all derived inputs with derive)
    flops=134217728,
    min_bytes=None,  # None: the bytes of the call's inputs
    atol=None,  # None: the dtype's default (fp32 1e-4, tf32 1e-3, bf16/fp16 1e-2)
    rtol=None,
    reference=None,  # None: this file's fn on fp32 copies of the inputs
    derive=None,
    call_inputs=None,
    device=None,  # None: cuda when torch sees a GPU, else cpu (decided at run time)
)

if __name__ == "__main__":
    main(TARGET, fn)
