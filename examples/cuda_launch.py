# SPDX-License-Identifier: Apache-2.0
"""CUDA C++ kernels for candidate scripts, without a torch extension build.

compile_cubin() runs nvcc once per source and GPU architecture (cached by content under
$HOTKERNEL_CUBIN_CACHE, else $XDG_CACHE_HOME/hotkernel/cubin or ~/.cache/hotkernel/cubin: a verify
worker's scratch, the only place it may write, sets both), and CudaModule loads the cubin through the
driver API (libcuda.so.1, which every CUDA install has) and launches on torch's current stream, so
launches are captured by CUDA graphs like any torch kernel. nvcc's output is captured and shown
only when it fails.
"""
import ctypes
import hashlib
import os
import shutil
import subprocess

import torch


class CudaLaunchError(RuntimeError):
    pass


def _nvcc():
    candidates = [os.environ.get("HOTKERNEL_NVCC")]
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            candidates.append(os.path.join(home, "bin", "nvcc"))
    candidates.append(shutil.which("nvcc"))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise CudaLaunchError("nvcc was not found (looked at HOTKERNEL_NVCC, CUDA_HOME, CUDA_PATH, /usr/local/cuda "
                          "and PATH): install the CUDA toolkit or set HOTKERNEL_NVCC to nvcc's path")


def compile_cubin(source_path, device=None, extra_flags=()):
    """Path of the cubin built from source_path for the given (default: current) CUDA device."""
    major, minor = torch.cuda.get_device_capability(device)
    arch = "sm_%d%d" % (major, minor)
    flags = ["-cubin", "-O3", "-std=c++17", "-arch=" + arch, "-lineinfo"] + list(extra_flags)
    with open(source_path, "rb") as f:
        source = f.read()
    nvcc = _nvcc()
    key = hashlib.sha256(source + "\0".join(flags + [nvcc]).encode()).hexdigest()[:24]
    cache = os.environ.get("HOTKERNEL_CUBIN_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "hotkernel", "cubin")
    os.makedirs(cache, exist_ok=True)
    stem = os.path.splitext(os.path.basename(source_path))[0]
    out = os.path.join(cache, "%s-%s-%s.cubin" % (stem, arch, key))
    if os.path.exists(out):
        return out
    tmp = "%s.%d.tmp" % (out, os.getpid())
    done = subprocess.run([nvcc] + flags + ["-o", tmp, source_path], capture_output=True, text=True)
    if done.returncode != 0:
        raise CudaLaunchError("nvcc failed on %s (exit %d):\n%s%s" % (source_path, done.returncode, done.stdout, done.stderr))
    os.replace(tmp, out)  # atomic: a parallel worker never loads half a file
    return out


_driver = None
_STATIC_SHARED_LIMIT = 48 * 1024  # dynamic shared memory above this needs the function's opt-in
_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
_CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6


class _LaunchAttribute(ctypes.Structure):  # CUlaunchAttribute with an int value (the union is 64 bytes)
    _fields_ = [("id", ctypes.c_uint), ("pad", ctypes.c_char * 4), ("value", ctypes.c_int),
                ("value_rest", ctypes.c_char * 60)]


class _LaunchConfig(ctypes.Structure):  # CUlaunchConfig; the kernel's own cluster dims apply
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared_bytes", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.POINTER(_LaunchAttribute)), ("num_attrs", ctypes.c_uint)]


def _dim3(dims):
    """A grid or block shape of up to three dimensions as (x, y, z)."""
    return tuple(dims) + (1,) * (3 - len(dims))


def _launch_config(grid, block, shared_bytes, attributes=()):
    attrs = (_LaunchAttribute * max(1, len(attributes)))(*attributes)
    config = _LaunchConfig((ctypes.c_uint * 3)(*_dim3(grid)), (ctypes.c_uint * 3)(*_dim3(block)), shared_bytes,
                           ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), attrs, len(attributes))
    config._keep = attrs  # the pointer does not keep the array alive
    return config


def _cuda():
    global _driver
    if _driver is None:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.cuModuleLoadData.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        lib.cuModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p]
        lib.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p,
                                       ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        lib.cuGetErrorString.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        lib.cuFuncSetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        lib.cuOccupancyMaxActiveClusters.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_void_p,
                                                     ctypes.POINTER(_LaunchConfig)]
        lib.cuLaunchKernelEx.argtypes = [ctypes.POINTER(_LaunchConfig), ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                         ctypes.POINTER(ctypes.c_void_p)]
        _driver = lib
    return _driver


def _check(status, what):
    if status != 0:
        text = ctypes.c_char_p()
        _cuda().cuGetErrorString(status, ctypes.byref(text))
        raise CudaLaunchError("%s failed: CUDA error %d (%s)" % (what, status, (text.value or b"?").decode()))


class CudaModule:
    def __init__(self, cubin_path):
        torch.cuda.init()
        torch.cuda.current_stream().synchronize()  # makes torch's primary context current on this thread
        with open(cubin_path, "rb") as f:
            self._image = f.read()  # the driver reads the image during the call only; keep it anyway
        self._handle = ctypes.c_void_p()
        _check(_cuda().cuModuleLoadData(ctypes.byref(self._handle), self._image), "cuModuleLoadData(%s)" % cubin_path)
        self._functions = {}
        self._shared_opt_in = {}
        self._non_portable = set()

    def function(self, name):
        if name not in self._functions:
            f = ctypes.c_void_p()
            _check(_cuda().cuModuleGetFunction(ctypes.byref(f), self._handle, name.encode()), "cuModuleGetFunction(%s)" % name)
            self._functions[name] = f
        return self._functions[name]

    def _prepare(self, name, shared_bytes, non_portable_cluster):
        """The function, opted in to shared_bytes of dynamic shared memory and, if asked, to clusters of
        more than 8 blocks (its __cluster_dims__)."""
        function = self.function(name)
        if shared_bytes > max(_STATIC_SHARED_LIMIT, self._shared_opt_in.get(name, 0)):
            _check(_cuda().cuFuncSetAttribute(function, _CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared_bytes),
                   "cuFuncSetAttribute(%s, %d bytes of dynamic shared memory)" % (name, shared_bytes))
            self._shared_opt_in[name] = shared_bytes
        if non_portable_cluster and name not in self._non_portable:
            _check(_cuda().cuFuncSetAttribute(function, _CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
                   "cuFuncSetAttribute(%s, non-portable cluster size allowed)" % name)
            self._non_portable.add(name)
        return function

    def max_active_clusters(self, name, grid, block, shared_bytes=0, non_portable_cluster=False):
        """How many of the kernel's clusters (its compiled __cluster_dims__) can run at once."""
        function = self._prepare(name, shared_bytes, non_portable_cluster)
        config = _launch_config(grid, block, shared_bytes)
        count = ctypes.c_int()
        _check(_cuda().cuOccupancyMaxActiveClusters(ctypes.byref(count), function, ctypes.byref(config)),
               "cuOccupancyMaxActiveClusters(%s)" % name)
        return count.value

    def launch(self, name, grid, block, args, shared_bytes=0, non_portable_cluster=False, programmatic=False):
        """args: tensors (passed as device pointers), ints (int32) or floats (float32), in kernel order.
        non_portable_cluster: the kernel's __cluster_dims__ hold more than 8 blocks. programmatic: a
        programmatic dependent launch of the kernel before it on the stream, which may start once
        every block of that one has run griddepcontrol.launch_dependents (or exited)."""
        values = []
        for a in args:
            if isinstance(a, torch.Tensor):
                values.append(ctypes.c_void_p(a.data_ptr()))
            elif isinstance(a, bool):
                values.append(ctypes.c_int(int(a)))
            elif isinstance(a, int):
                values.append(ctypes.c_int(a))
            elif isinstance(a, float):
                values.append(ctypes.c_float(a))
            else:
                raise CudaLaunchError("cannot pass %s to a kernel" % type(a).__name__)
        params = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        function = self._prepare(name, shared_bytes, non_portable_cluster)
        if programmatic:
            config = _launch_config(grid, block, shared_bytes,
                                    [_LaunchAttribute(_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, b"", 1)])
            _check(_cuda().cuLaunchKernelEx(ctypes.byref(config), function, params, None), "cuLaunchKernelEx(%s)" % name)
            return
        stream = torch.cuda.current_stream().cuda_stream
        _check(_cuda().cuLaunchKernel(function, *_dim3(grid), *_dim3(block), shared_bytes, stream, params, None),
               "cuLaunchKernel(%s)" % name)
