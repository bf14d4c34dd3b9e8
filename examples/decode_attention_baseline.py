"""Target decode_attention: the function to beat and the target definition (made by `hotkernel new`).

python decode_attention_baseline.py [--run I] [--device cuda|cpu] prints one JSON result line; --worker serves runs on stdin;
--check-import only imports. Made with:
    hotkernel new decode_attention --from ./kernels.py:decode_attention --shape q=1x32x1x128 --extra k:1x8x32768x128,v:1x8x32768x128 --rotate k,v --flops 536870912 --reference ./kernels.py:decode_attention_reference --dtype bf16 --atol 0.0005
"""
from _hotkernel_contract import Input, Target, load_function, main  # first: keeps stdout for the protocol

baseline_impl = load_function("./kernels.py:decode_attention", __file__)


def fn(q, k, v):
    return baseline_impl(q, k, v)


TARGET = Target(
    name="decode_attention",
    inputs=[Input("q", [1, 32, 1, 128]), Input("k", [1, 8, 32768, 128]), Input("v", [1, 8, 32768, 128])],
    dtype="bf16",
    seed=0,
    iters=50,
    rotate=["k", "v"],  # None: the first input (all derived inputs with derive)
    flops=536870912,
    min_bytes=None,  # None: the bytes of the call's inputs
    atol=0.0005,  # None: the dtype's default (fp32 1e-4, tf32 1e-3, bf16/fp16 1e-2)
    rtol=None,
    reference="./kernels.py:decode_attention_reference",  # None: this file's fn on fp32 copies of the inputs
    derive=None,
    call_inputs=None,
    device=None,  # None: cuda when torch sees a GPU, else cpu (decided at run time)
)

if __name__ == "__main__":
    main(TARGET, fn)
