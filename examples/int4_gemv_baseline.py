"""Target int4_gemv: the function to beat and the target definition (made by `hotkernel new`).

python int4_gemv_baseline.py [--run I] [--device cuda|cpu] prints one JSON result line; --worker serves runs on stdin;
--check-import only imports. Made with:
    hotkernel new int4_gemv --from ./kernels.py:int4_gemv --shape w=8192x8192 --extra x:1x8192 --rotate w_int4pack,scales_zeros,w_nibbles --flops 134217728 --reference ./kernels.py:int4_gemv_reference --derive ./kernels.py:int4_derive --inputs x,w_int4pack,scales_zeros,w_nibbles --min-bytes 35667968 --dtype bf16 --atol 1.5
"""
from _hotkernel_contract import Input, Target, load_function, main  # first: keeps stdout for the protocol

baseline_impl = load_function("./kernels.py:int4_gemv", __file__)


def fn(x, w_int4pack, scales_zeros, w_nibbles):
    return baseline_impl(x, w_int4pack, scales_zeros, w_nibbles)


TARGET = Target(
    name="int4_gemv",
    inputs=[Input("w", [8192, 8192]), Input("x", [1, 8192])],
    dtype="bf16",
    seed=0,
    iters=50,
    rotate=["w_int4pack", "scales_zeros", "w_nibbles"],  # None: the first input (all derived inputs with derive)
    flops=134217728,
    min_bytes=35667968,  # None: the bytes of the call's inputs
    atol=1.5,  # None: the dtype's default (fp32 1e-4, tf32 1e-3, bf16/fp16 1e-2)
    rtol=None,
    reference="./kernels.py:int4_gemv_reference",  # None: this file's fn on fp32 copies of the inputs
    derive="./kernels.py:int4_derive",
    call_inputs=["x", "w_int4pack", "scales_zeros", "w_nibbles"],
    device=None,  # None: cuda when torch sees a GPU, else cpu (decided at run time)
)

if __name__ == "__main__":
    main(TARGET, fn)
