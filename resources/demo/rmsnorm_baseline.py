"""Target rmsnorm: the function to beat and the target definition (made by `hotkernel new`).

python rmsnorm_baseline.py [--run I] [--device cuda|cpu] prints one JSON result line; --worker serves runs on stdin;
--check-import only imports. Made with:
    hotkernel new rmsnorm --from ./kernels.py:rmsnorm --shape 4096x8192 --extra w:8192 --rotate x --flops 134217728 --dtype bf16
"""
from _hotkernel_contract import Input, Target, load_function, main  # first: keeps stdout for the protocol

baseline_impl = load_function("./kernels.py:rmsnorm", __file__)


def fn(x, w):
    return baseline_impl(x, w)


TARGET = Target(
    name="rmsnorm",
    inputs=[Input("x", [4096, 8192]), Input("w", [8192])],
    dtype="bf16",
    seed=0,
    iters=50,
    rotate=["x"],  # None: the first input (all derived inputs with derive)
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
