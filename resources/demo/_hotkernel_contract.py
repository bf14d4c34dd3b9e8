# SPDX-License-Identifier: Apache-2.0
"""hotkernel measurement contract, protocol 4 (vendored next to the target scripts by `hotkernel new`).

A baseline script defines TARGET = Target(...) and fn; a candidate imports TARGET from the baseline
and defines only fn. Both end with main(TARGET, fn). Run a script once (one JSON line on stdout),
as a worker (--worker: a ready line, then one answer line per request on stdin: {"op": "run"} runs,
{"op": "judge"} judges another process's judged outputs against this target's reference), or
with --check-import (imports and resolves the target without touching the device).
docs/contract.md in the hotkernel repository is the specification; this file needs only torch.
"""

import errno
import hashlib
import importlib
import importlib.util
import json
import math
import os
import platform
import stat
import statistics
import sys
import threading
import time
import traceback

PROTOCOL = 5
REPLAYS = 5
# Protocol 5 (issue 41): on the GPU the judged replay is the bracketed one (the core's own clock
# around it: armed, go, done); its block is replayed back to back until it lasts about this long,
# at most MAX_REPLAYS times, so that the clock can bound what the witness says it took.
BRACKET_S = 0.020
MAX_REPLAYS = 40
# A CPU run has no witness: the bracket is all that bounds its samples, and the core's clock there
# wobbles by milliseconds (process wake-ups), so its replays last longer.
CPU_BRACKET_S = 0.060
CPU_MAX_REPLAYS = 100
# Issue 41, class 8 on a CPU: no timed call sees inputs an earlier one saw. A CPU block gets one
# rotated set per call (while they fit in CPU_DISTINCT_SET_BYTES), every set a replay used is
# changed in place between replays (_InputChanges), and about CPU_SPOT_CALLS timed calls, drawn
# after their replay ran, are checked against references for the inputs they saw: a call that
# skipped its work on changed inputs is wrong there, not merely stale.
CPU_DISTINCT_SET_BYTES = 1 << 30
CPU_SPOT_CALLS = 6
# The same on the GPU, within a timed replay: one rotated set per call while the sets take at most
# GPU_DISTINCT_SET_L2 times the card's L2 (both sides run on one card, so both get the same count),
# and every set is drawn afresh between timed replays. Where iters sets do not fit, a timed replay
# makes as many calls as there are sets ("calls" in the line), never more: a call on a set an
# earlier call of the replay used would find it unchanged, and its output would be overwritten
# before anyone saw it. A worker holds each set about five times over (the set, its fp32
# reference, the graph's output, the judged copy): at a sixteenth of an H100's memory per set,
# 50 sets of a 64 MiB rmsnorm took 15 GB a worker and a session's four workers did not fit
# (2026-12-08); 8 x L2 keeps a worker near 2 GB and a replay still far past the cache.
GPU_DISTINCT_SET_L2 = 8
# Words of each judged input sampled into its fingerprint (_Bench._inputs_digest).
_DIGEST_SAMPLE = 1 << 16


# Files a script or a worker names are read without trusting what they are (issue 39): opened
# non-blocking (a FIFO or a device never holds the reader), refused unless regular, read up to a
# limit. follow=False refuses a symbolic link in the last place (a file this process made).
_SOURCE_LIMIT = 16 * 1024 * 1024


def _open_regular(path, follow=True):
    """A binary file object for path, a regular file; OSError otherwise (EINVAL for a FIFO,
    a device, a directory or a socket)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= os.O_NOFOLLOW
    fd = os.open(path, flags)  # flags hold O_NONBLOCK
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_regular(path, limit, follow=True):
    """path's bytes, at most limit of them (OSError EFBIG past it, a file that grew included)."""
    with _open_regular(path, follow) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, "larger than %d bytes" % limit, path)
    return data
# At most this many rotated copies. Keeping a 1 KiB input out of a 480 MiB CPU cache would take a
# million copies, each checked every run: rotation cannot make tiny inputs cache-cold, so it stops
# here and the result line says so (timer_note).
MAX_ROTATED_SETS = 256
FALLBACK_LLC_BYTES = 32 * 1024 * 1024
# An L2 size when torch cannot tell (older torch): larger than any current GPU's, so rotation errs
# on the side of more copies.
FALLBACK_L2_BYTES = 128 * 1024 * 1024

FLOAT_DTYPES = ("bf16", "fp16", "fp32", "tf32", "fp64")
INT_DTYPES = ("int8", "uint8", "int32", "int64")
DEFAULT_TOLERANCE = {"fp64": 1e-10, "fp32": 1e-4, "tf32": 1e-3, "bf16": 1e-2, "fp16": 1e-2}

# --- stdout belongs to the protocol --------------------------------------------------------------
# Keep a private duplicate of fd 1 for JSON lines and point fd 1 at fd 2, so that whatever user code,
# torch, Triton or a C library prints lands on stderr. Done at import, before any user code runs
# (the generated scripts import this module first).
_protocol_fd = None


def _protect_stdout():
    global _protocol_fd
    if _protocol_fd is not None:
        return
    try:
        sys.stdout.flush()
    except Exception:
        pass
    _protocol_fd = os.dup(1)
    os.dup2(2, 1)


_protect_stdout()


def _emit(obj):
    data = (json.dumps(obj, allow_nan=False, separators=(", ", ": ")) + "\n").encode("utf-8")
    while data:
        written = os.write(_protocol_fd, data)
        data = data[written:]


# --- the user's source files this process runs (worker protocol: "sources") ----------------------
# A kept worker is reused between calls only while the files it imported are unchanged. The worker
# names them, since only it knows what it imported (transitively, from packages, lazily inside fn,
# through PYTHONPATH), and hashes their bytes when it reports them. A file may change between its
# import and that report: a file whose mtime is not older than this module's import (before any
# user module's: the scripts import the contract first) is reported with a null hash ("cannot
# vouch"), which makes the core replace the worker at its next use. That moment is read from the
# coarse real-time clock that Linux file systems stamp mtimes with, so an edit after it never
# carries an older mtime (docs/contract.md, "Stale workers").
def _coarse_now_ns():
    if sys.platform.startswith("linux"):
        try:
            return time.clock_gettime_ns(getattr(time, "CLOCK_REALTIME_COARSE", 5))
        except (AttributeError, OSError):
            pass
    return time.time_ns()


_STARTED_NS = _coarse_now_ns()
# Files executed as modules outside sys.modules (the baseline run afresh as the default reference).
_EXTRA_SOURCES = set()
_SOURCE_CACHE = {}  # path -> ((mtime_ns, size, inode), sha256): hash each file once per version
_IS_USER_FILE = {}  # path -> bool: resolving thousands of module paths each run costs milliseconds
_INTERPRETER_DIRS = None


def _under(path, dirs):
    return any(path == d[:-1] or path.startswith(d) for d in dirs)


def _interpreter_dirs():
    """(always, prefixes): directories whose files are the interpreter's, not the user's. Files under
    `always` (stdlib and site-packages of every kind) are never reported; files under a prefix are
    left out unless they lie under the script's folder (a project kept below /usr/local, say)."""
    global _INTERPRETER_DIRS
    if _INTERPRETER_DIRS is None:
        import site
        import sysconfig

        always = [sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
        try:
            always += list(site.getsitepackages())
        except Exception:
            pass
        try:
            always.append(site.getusersitepackages())
        except Exception:
            pass
        prefixes = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]

        def norm(dirs):
            dirs = [d for d in dirs if d]
            return tuple(sorted({os.path.join(f(d), "") for d in dirs for f in (os.path.abspath, os.path.realpath)}))

        _INTERPRETER_DIRS = (norm(always), norm(prefixes))
    return _INTERPRETER_DIRS


def _source_sha256(path):
    """sha256 of path's bytes, or None when the file changed since this process started (it may not
    be what was imported) or changed while being read."""
    try:
        before = os.stat(path)
        if before.st_mtime_ns >= _STARTED_NS:
            return None
        key = (before.st_mtime_ns, before.st_size, before.st_ino)
        cached = _SOURCE_CACHE.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        digest = hashlib.sha256(_read_regular(path, _SOURCE_LIMIT)).hexdigest()
        after = os.stat(path)
        if (after.st_mtime_ns, after.st_size, after.st_ino) != key:
            return None
        _SOURCE_CACHE[path] = (key, digest)
        return digest
    except OSError:
        return None


def _user_sources():
    """{absolute path: sha256 or None} of every regular file behind a loaded module (and the files
    run afresh) that is not the interpreter's (_interpreter_dirs)."""
    always, prefixes = _interpreter_dirs()
    main_file = os.path.abspath(getattr(sys.modules.get("__main__"), "__file__", None) or sys.argv[0])
    home = tuple({os.path.join(os.path.dirname(f(main_file)), "") for f in (os.path.abspath, os.path.realpath)})

    def interpreters(p):
        return _under(p, always) or (_under(p, prefixes) and not _under(p, home))

    paths = set(_EXTRA_SOURCES)
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path:
            paths.add(os.path.abspath(path))
    sources = {}
    for path in sorted(paths):
        user = _IS_USER_FILE.get(path)
        if user is None:
            # Both the path as imported and the file it resolves to (Debian's sitecustomize.py in
            # the stdlib is a link into /etc): either under the interpreter's directories leaves it out.
            user = not (interpreters(path) or interpreters(os.path.realpath(path)))
            _IS_USER_FILE[path] = user
        if not user:
            continue
        if not os.path.isfile(path):  # a zip member or a frozen module: nothing to compare later
            continue
        sources[path] = _source_sha256(path)
    return sources


def _log(message):
    sys.stderr.write("[hotkernel contract] " + message + "\n")
    sys.stderr.flush()


class TargetError(Exception):
    """A bad target definition: reported in the `error` field of the line."""


class _Invalid(Exception):
    """The run cannot be trusted (a patched timer, a tensor subclass, persisting L2 lines...):
    reported in the `invalid` field of the line, which makes the verdict invalid."""


class _StepClock:
    """Milliseconds spent in each named step of a run, outside and inside the timed region, for the
    line's steps_ms (where a verify's wall time goes). Diagnostics only: no verdict reads them."""

    def __init__(self):
        self.ms = {}
        self._last = time.perf_counter()

    def lap(self, name):
        now = time.perf_counter()
        self.ms[name] = round(self.ms.get(name, 0.0) + (now - self._last) * 1e3, 3)
        self._last = now


# glibc's malloc raises its mmap threshold each time a process frees a large mmapped block, and gives
# freed heap back to the system above a trim threshold that moves with it. Whether an output of a
# few MiB then comes from reused heap or from fresh pages (a fault and a zeroing per 4 KiB, about a
# third of a 1024x2048 fp32 gelu's time on the 2-core machine) depends on what the process freed
# before (the judge, the judged write, its age), not on fn: on CPU the untouched candidate was
# "slower" than its own baseline in 9 of 12 verifies (issue 42). Fixed thresholds serve every
# process alike: blocks up to 32 MiB (glibc's largest mmap threshold) come from the heap, which
# keeps what is freed (docs/measurements/aa-cpu-*.txt).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_STEADY_MMAP_THRESHOLD = 32 * 1024 * 1024
_STEADY_TRIM_THRESHOLD = 1 << 30


def _steady_host_allocator():
    """Fixes glibc malloc's mmap and trim thresholds (no-op elsewhere); says on stderr when it cannot."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    except (OSError, AttributeError):
        _log("no glibc mallopt: host allocations follow the allocator's own history")
        return
    if not (mallopt(_M_MMAP_THRESHOLD, _STEADY_MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, _STEADY_TRIM_THRESHOLD)):
        _log("mallopt refused fixed thresholds: host allocations follow the allocator's own history")


def _fresh_judge_seed():
    # 53 bits: exact in every JSON reader, and unknowable before the run.
    return int.from_bytes(os.urandom(7), "big") >> 3


def _draw_below(n):
    """A number in [0, n), from os.urandom (n is far below 2**64, so the bias is nil)."""
    return int.from_bytes(os.urandom(8), "big") % n


def _draw_unit():
    """A number in [0, 1), from os.urandom."""
    return (int.from_bytes(os.urandom(7), "big") >> 3) / float(1 << 53)


# --- definitions ---------------------------------------------------------------------------------
class Input:
    """One raw input tensor: drawn with randn (floating) or randint(0, high) (integer dtypes).

    dtype None means the target's dtype."""

    def __init__(self, name, shape, dtype=None, high=None):
        self.name = str(name)
        self.shape = [int(d) for d in shape]
        self.dtype = dtype
        self.high = high

    def definition(self, target_dtype):
        d = {"name": self.name, "shape": self.shape, "dtype": self.dtype or target_dtype}
        if self.high is not None:
            d["high"] = int(self.high)
        return d


def _callable_name(value):
    if value is None or isinstance(value, str):
        return value
    code = getattr(value, "__code__", None)
    where = os.path.basename(code.co_filename) if code is not None else getattr(value, "__module__", "?")
    return "%s:%s" % (where, getattr(value, "__qualname__", repr(value)))


class Target:
    """What is measured: inputs, dtype, seed, reference, tolerances, rotation, iters, flops, bytes.

    reference: "module:function", "./file.py:function" (relative to this file's directory) or a
      callable; None means the baseline's own fn on fp32 copies of the inputs.
    derive: "module:function" mapping the dict of raw tensors to the dict of call inputs, named in
      call order by call_inputs; the reference then gets the derived inputs as they are.
    device: "cuda", "cpu" or None (cuda when torch sees a GPU, else cpu; decided at run time).
    """

    def __init__(self, name, inputs, dtype="bf16", seed=0, iters=50, rotate=None, flops=None,
                 min_bytes=None, atol=None, rtol=None, reference=None, derive=None,
                 call_inputs=None, device=None):
        self.name = name
        self.inputs = list(inputs)
        self.dtype = dtype
        self.seed = seed
        self.iters = iters
        self.rotate = rotate
        self.flops = flops
        self.min_bytes = min_bytes
        self.atol = atol
        self.rtol = rtol
        self.reference = reference
        self.derive = derive
        self.call_inputs = call_inputs
        self.device = device
        # The module that defined the target: its fn is the reference when none is given.
        self._defining_globals = sys._getframe(1).f_globals

    def resolved(self):
        """The definition with defaults filled, validated; raises TargetError."""
        if not isinstance(self.name, str) or not self.name:
            raise TargetError("target name must be a non-empty string")
        if self.dtype not in FLOAT_DTYPES:
            raise TargetError("unknown dtype %r: use one of %s" % (self.dtype, ", ".join(FLOAT_DTYPES)))
        if not self.inputs:
            raise TargetError("a target needs at least one input")
        names = []
        for inp in self.inputs:
            if not isinstance(inp, Input):
                raise TargetError("inputs must be Input(...) objects, got %r" % (inp,))
            if inp.name in names:
                raise TargetError("input %r is defined twice" % inp.name)
            if inp.dtype is not None and inp.dtype not in FLOAT_DTYPES + INT_DTYPES:
                raise TargetError("input %r: unknown dtype %r: use one of %s"
                                  % (inp.name, inp.dtype, ", ".join(FLOAT_DTYPES + INT_DTYPES)))
            if inp.dtype in INT_DTYPES and inp.high is None:
                raise TargetError("input %r: integer inputs need high= (values are drawn from [0, high))" % inp.name)
            if any(d <= 0 for d in inp.shape):
                raise TargetError("input %r: every dimension must be positive, got %s" % (inp.name, inp.shape))
            names.append(inp.name)
        if self.derive is not None:
            if not self.call_inputs:
                raise TargetError("derive needs call_inputs: the names of the call's inputs, in call order")
            if self.reference is None:
                raise TargetError("derive needs an explicit reference (the baseline cannot run on fp32 copies "
                                  "of derived inputs): pass reference=\"module:function\"")
            call = [str(n) for n in self.call_inputs]
        else:
            if self.call_inputs and list(self.call_inputs) != names:
                raise TargetError("call_inputs without derive must equal the input names %s" % names)
            call = names
        if self.rotate is None:
            rotate = list(call) if self.derive is not None else [names[0]]
        else:
            rotate = [str(r) for r in self.rotate]
        for r in rotate:
            if r not in call:
                raise TargetError("rotate names %r, which is not among the call inputs %s" % (r, call))
        if not isinstance(self.iters, int) or self.iters < 1:
            raise TargetError("iters must be a positive integer, got %r" % (self.iters,))
        if not isinstance(self.seed, int) or self.seed < 0:
            raise TargetError("seed must be a non-negative integer, got %r" % (self.seed,))
        if self.min_bytes is not None and (not isinstance(self.min_bytes, int) or self.min_bytes <= 0):
            raise TargetError("min_bytes must be a positive integer, got %r" % (self.min_bytes,))
        if self.device not in (None, "cuda", "cpu"):
            raise TargetError("device must be cuda, cpu or None, got %r" % (self.device,))
        tol = DEFAULT_TOLERANCE[self.dtype]
        return {
            "name": self.name,
            "inputs": [inp.definition(self.dtype) for inp in self.inputs],
            "call_inputs": call,
            "dtype": self.dtype,
            "seed": self.seed,
            "iters": self.iters,
            "rotate": rotate,
            "flops": self.flops,
            "min_bytes": self.min_bytes,
            "atol": float(self.atol if self.atol is not None else tol),
            "rtol": float(self.rtol if self.rtol is not None else tol),
            "reference": _callable_name(self.reference),
            "derive": _callable_name(self.derive),
            "device": self.device,
        }


def load_function(spec, relative_to=None):
    """Resolve "module:function" or "./file.py:function" (a path relative to relative_to's
    directory, or absolute) to the function."""
    if callable(spec):
        return spec
    if not isinstance(spec, str) or ":" not in spec:
        raise TargetError("%r is not module:function or ./file.py:function" % (spec,))
    where, _, attr = spec.rpartition(":")
    if where.endswith(".py") or "/" in where:
        # HOTKERNEL_CHECK_DIR: set only by `hotkernel new` while it checks scripts staged in a temporary
        # folder, so that paths resolve against the folder the scripts are about to move to.
        base = os.environ.get("HOTKERNEL_CHECK_DIR") or os.path.dirname(os.path.abspath(relative_to or __file__))
        path = where if os.path.isabs(where) else os.path.join(base, where)
        if not os.path.isfile(path):
            raise TargetError("%s: file %s does not exist" % (spec, path))
        module_name = "_hotkernel_file_" + hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:12]
        module = sys.modules.get(module_name)
        if module is None:
            loader_spec = importlib.util.spec_from_file_location(module_name, path)
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[module_name] = module
            loader_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise TargetError("%s: %s has no attribute %r" % (spec, getattr(module, "__name__", where), part))
        obj = getattr(obj, part)
    if not callable(obj):
        raise TargetError("%s is not callable" % spec)
    return obj


def _sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def contract_sha256():
    return _sha256_hex(_read_regular(os.path.abspath(__file__), _SOURCE_LIMIT))


def target_sha256(definition):
    return _sha256_hex(json.dumps(definition, sort_keys=True, separators=(",", ":")).encode("utf-8"))


# --- the machine ---------------------------------------------------------------------------------
def _parse_cache_size(text):
    text = text.strip().upper()
    units = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    if text and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def cpu_last_level_cache_bytes():
    best_level, best_size = -1, None
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = sorted(e for e in os.listdir(base) if e.startswith("index"))
    except OSError:
        return FALLBACK_LLC_BYTES
    for entry in entries:
        try:
            level = int(_read_regular(os.path.join(base, entry, "level"), 4096))
            size = _parse_cache_size(_read_regular(os.path.join(base, entry, "size"), 4096).decode())
        except (OSError, ValueError):
            continue
        if level > best_level:
            best_level, best_size = level, size
    return best_size or FALLBACK_LLC_BYTES


def cpu_model_name():
    try:
        for line in _read_regular("/proc/cpuinfo", 16 * 1024 * 1024).decode(errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def _versions(torch, device):
    try:
        import triton  # noqa: F401  (only its version is wanted)
        triton_version = getattr(triton, "__version__", None)
    except Exception:
        triton_version = None
    return {
        "torch": torch.__version__,
        "triton": triton_version,
        "cuda": torch.version.cuda if device == "cuda" else None,
        "python": platform.python_version(),
    }


# --- one measurement session (one process) -------------------------------------------------------
class _Bench:
    def __init__(self, target, fn, device_override):
        import torch
        self.torch = torch
        self.target = target
        self.fn = fn
        self.definition = target.resolved()
        device = device_override or self.definition["device"]
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        if device == "cuda" and not torch.cuda.is_available():
            raise TargetError("device cuda was asked for but torch %s sees no GPU "
                              "(torch.cuda.is_available() is False): run on the GPU machine or pass --device cpu"
                              % torch.__version__)
        self.definition["device"] = device
        self.device = device
        if device == "cpu":
            _steady_host_allocator()
        self.torch_dtype = self._torch_dtype(self.definition["dtype"])
        base = target._defining_globals.get("__file__")
        ref = self.definition["reference"]
        if target.reference is None:
            baseline_fn = target._defining_globals.get("fn")
            if baseline_fn is None:
                raise TargetError("no reference given and the module defining TARGET has no fn")
            # A candidate imports the baseline module and could replace its fn: the reference is
            # the fn of the baseline file executed afresh, outside sys.modules.
            self.reference = _fresh_function(target._defining_globals.get("__file__"), "fn") or baseline_fn
            self.reference_on_fp32_copies = True
        else:
            self.reference = load_function(target.reference if callable(target.reference) else ref, base)
            self.reference_on_fp32_copies = target.derive is None
        self.derive = load_function(target.derive, base) if target.derive is not None else None
        if device == "cuda":
            props = torch.cuda.get_device_properties(torch.cuda.current_device())
            self.l2_bytes = int(getattr(props, "L2_cache_size", 0) or FALLBACK_L2_BYTES)
            self.device_name = torch.cuda.get_device_name(torch.cuda.current_device())
        else:
            self.l2_bytes = cpu_last_level_cache_bytes()
            self.device_name = cpu_model_name()
        self.versions = _versions(torch, device)
        self.target_sha = target_sha256(self.definition)
        self.contract_sha = contract_sha256()
        self.sets = None
        self.refs = None
        self.out_bytes = None
        # (judge seed, digest) the inputs and refs were last drawn from, when from a judge seed.
        self.judged_inputs = None

    def _wide(self, a):
        """The reference precision: fp32, or fp64 for an fp64 target (fp32 would be the coarser)."""
        return a.double() if self.definition["dtype"] == "fp64" else a.float()

    def _torch_dtype(self, name):
        t = self.torch
        return {"bf16": t.bfloat16, "fp16": t.float16, "fp32": t.float32, "tf32": t.float32, "fp64": t.float64,
                "int8": t.int8, "uint8": t.uint8, "int32": t.int32, "int64": t.int64}[name]

    # Inputs: drawn from torch.Generator(seed + run), refilled in place between runs.
    def _draw(self, gen, spec, into=None):
        t = self.torch
        if into is None:
            into = t.empty(spec["shape"], dtype=self._torch_dtype(spec["dtype"]), device=self.device)
        else:
            # Through .data: same storage, but the tensor's version counter does not move, so a
            # cache keyed by data_ptr and _version serves stale outputs and fails the check.
            into = into.data
        if spec["dtype"] in INT_DTYPES:
            into.random_(0, spec["high"], generator=gen)
        else:
            into.normal_(generator=gen)
        return into

    def _raw_set(self, gen, names=None, into=None):
        raw = {}
        for spec in self.definition["inputs"]:
            if names is None or spec["name"] in names:
                raw[spec["name"]] = self._draw(gen, spec, None if into is None else into.get(spec["name"]))
        return raw

    def _derived(self, raw):
        try:
            out = self.derive(dict(raw))
        except Exception as e:
            traceback.print_exc()
            raise TargetError("derive raised %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
        if not isinstance(out, dict):
            raise TargetError("derive must return a dict of call inputs, got %s" % type(out).__name__)
        missing = [n for n in self.definition["call_inputs"] if n not in out]
        if missing:
            raise TargetError("derive returned no %s (it returned %s)" % (missing, sorted(out)))
        return {n: out[n] for n in self.definition["call_inputs"]}

    def _distinct_set_bytes(self):
        """How much memory the rotated sets may take for one set per call (class 8)."""
        if self.device == "cpu":
            return CPU_DISTINCT_SET_BYTES
        return GPU_DISTINCT_SET_L2 * self.l2_bytes

    def rotated_bytes(self):
        return sum(self.sets[0][n].numel() * self.sets[0][n].element_size() for n in self.definition["rotate"])

    def fill(self, run, seed=None, refs=True):
        """Draw (first time) or refill in place (later) every input from seed + run, or from seed
        when given (the judge seed), and compute their references unless refs is false."""
        t = self.torch
        self.judged_inputs = None
        gen = t.Generator(device=self.device)
        gen.manual_seed(self.definition["seed"] + run if seed is None else seed)
        rotate = self.definition["rotate"]
        first = self.sets is None
        with t.no_grad():
            if self.derive is None:
                set0 = self._raw_set(gen, None, None if first else self.sets[0])
            else:
                set0 = self._derived(self._raw_set(gen))
                if not first:
                    for n, v in set0.items():
                        self.sets[0][n].data.copy_(v)
                    set0 = self.sets[0]
            if first:
                rotated = max(1, sum(set0[n].numel() * set0[n].element_size() for n in rotate))
                per_call = self.definition["min_bytes"] or rotated
                wanted = max(2, int(math.ceil(2 * self.l2_bytes / per_call)) + 1)
                self.k = 1 if not rotate else min(wanted, MAX_ROTATED_SETS)
                iters = self.definition["iters"]
                if rotate:
                    # One set per call of a block where memory allows (class 8: a call on a set an
                    # earlier call of the block used would find its inputs unchanged).
                    fits = max(1, self._distinct_set_bytes() // rotated)
                    self.k = max(self.k, min(iters, MAX_ROTATED_SETS, fits))
                notes = []
                if rotate and wanted > MAX_ROTATED_SETS:
                    notes.append("rotation capped at %d copies of %d bytes (%d would exceed 2x the %d-byte cache): "
                                 "inputs this small may be timed cache-warm"
                                 % (MAX_ROTATED_SETS, per_call, wanted, self.l2_bytes))
                # Without rotated inputs every call sees the same set: the target's own choice.
                self.calls = min(iters, self.k) if rotate else iters
                if self.calls < iters:
                    notes.append("timed replays of %d calls, not the target's %d: one call per rotated set, and no "
                                 "more sets fit (%d bytes each; at most %d sets and %d bytes)"
                                 % (self.calls, iters, rotated, MAX_ROTATED_SETS, self._distinct_set_bytes()))
                self.rotate_note = "; ".join(notes) or None
                self.sets = [set0]
            for k in range(1, self.k):
                if self.derive is None:
                    into = None if first else self.sets[k]
                    fresh = self._raw_set(gen, rotate, into)
                else:
                    fresh = self._derived(self._raw_set(gen))
                    fresh = {n: fresh[n] for n in rotate}
                    if not first:
                        for n, v in fresh.items():
                            self.sets[k][n].data.copy_(v)
                        continue
                if first:
                    s = dict(set0)
                    s.update(fresh)
                    self.sets.append(s)
        self.refs = [self._reference(s) for s in self.sets] if refs else None
        if self.device == "cuda":
            t.cuda.synchronize()

    def args(self, s):
        return [s[n] for n in self.definition["call_inputs"]]

    def _reference(self, s):
        t = self.torch
        args = self.args(s)
        if self.reference_on_fp32_copies:
            args = [self._wide(a) if a.is_floating_point() else a for a in args]
        with t.no_grad(), _Tf32(t, False):
            try:
                out = self.reference(*args)
            except Exception as e:
                traceback.print_exc()
                raise TargetError("the reference raised %s: %s%s" % (
                    type(e).__name__, str(e).splitlines()[0] if str(e) else "", "" if self.target.reference is not None else
                    " (the baseline fn runs on fp32 copies as the reference: if it cannot, give reference=)"))
        outs = _as_list(out)
        if outs is None:
            raise TargetError("the reference returned %s, not a tensor or a tuple of tensors" % type(out).__name__)
        outs = [self._wide(o.detach()) for o in outs]
        if self.out_bytes is None:
            self.out_bytes = sum(o.numel() for o in outs) * t.empty((), dtype=self.torch_dtype).element_size()
        return outs

    def call(self, s):
        return self.fn(*self.args(s))

    def check_each(self, outputs, where=""):
        """(ok, worst error, mismatch) over (set index, output) pairs, stopping at the first
        output that fails its check."""
        worst = 0.0
        for k, out in outputs:
            good, err, why = self.check(out, k, where)
            if err is not None:
                worst = max(worst, err)
            if not good:
                return False, worst, why
        return True, worst, None

    def check(self, out, k, where=""):
        """(ok, max_err, mismatch) of one output against the reference of rotated set k."""
        t = self.torch
        ref = self.refs[k]
        outs = _as_list(out)
        suffix = " (rotated set %d%s)" % (k, where)
        if outs is None:
            return False, None, "fn returned %s, not a tensor or a tuple of tensors%s" % (type(out).__name__, suffix)
        if len(outs) != len(ref):
            return False, None, "fn returned %d outputs, the reference %d%s" % (len(outs), len(ref), suffix)
        worst = 0.0
        atol, rtol = self.definition["atol"], self.definition["rtol"]
        _require_plain(t, outs, suffix)
        for o, r in zip(outs, ref):
            if list(o.shape) != list(r.shape):
                return False, None, "output shape %s != reference shape %s%s" % (list(o.shape), list(r.shape), suffix)
            if o.dtype != self.torch_dtype:
                return False, None, "output dtype %s != the target's %s%s" % (o.dtype, self.torch_dtype, suffix)
            of = self._wide(o.detach())
            if bool(t.isnan(of).any()):
                return False, None, "NaN in output" + suffix
            if bool(t.isinf(of).any()):
                return False, None, "Inf in output" + suffix
            if not bool(t.isfinite(r).all()):
                return False, None, "NaN or Inf in the reference" + suffix
            err = (of - r).abs()
            worst = max(worst, float(err.max()) if err.numel() else 0.0)
            excess = err - (atol + rtol * r.abs())
            if err.numel() and float(excess.max()) > 0:
                return False, worst, "max abs err %.6g > atol %g + rtol %g * |ref|%s" % (worst, atol, rtol, suffix)
        return True, worst, None

    # Timing
    def time_block(self, timer=None, run=0, bracket=False):
        """(per-call ms samples, timer, timer_note, outs, run_block, timed windows): outs maps set
        index to the timed block's last output of that set; run_block runs the block again
        (untimed). timer "events" skips the CUDA graph: verify asks both sides for it when one of
        them cannot be captured, so that their times come from the same timer. With bracket, a CPU
        block's timed replays wait for the core's go and say when they are done (_Bracket; on the
        GPU the judged replay is the bracketed one, _witness). On the GPU each timed replay runs in
        its own witness window when the core asked for a witness, and the inputs are drawn afresh
        between timed replays (protocol 5)."""
        t = self.torch
        iters, k = self.calls, self.k
        if self.device == "cpu":
            # A tuple, never a list: nothing another thread holds can change a sample in place.
            samples = ()
            changes = _InputChanges(self)
            kept = []
            # A CPU run has no witness: its timed replays are the bracketed ones.
            with _Bracket(run, bracket):
                # Replays are added until they last CPU_BRACKET_S. Between them every set the block
                # uses is changed in place (one pass over it: drawing inputs past the last-level
                # cache would cost more than the block); the last replay runs on the run's own
                # inputs again, so its outputs are checked against the references.
                total = 0.0
                keep = 1.0
                while (len(samples) < REPLAYS - 1 or
                       (total < CPU_BRACKET_S and len(samples) < CPU_MAX_REPLAYS - 1)):
                    if samples:
                        changes.change()
                    outs = {}
                    start = time.perf_counter()
                    for i in range(iters):
                        outs[i % k] = self.call(self.sets[i % k])
                    took = time.perf_counter() - start
                    total += took
                    samples += (took * 1e3 / iters,)
                    if len(samples) == 1:
                        # Sized so that about CPU_SPOT_CALLS calls are kept over the changed
                        # replays: those still holding their own output (one, for a static buffer).
                        expected = min(max(REPLAYS, math.ceil(CPU_BRACKET_S / max(took, 1e-9))), CPU_MAX_REPLAYS)
                        eligible = max(1, len(_unaliased(outs, iters, k)))
                        keep = min(1.0, CPU_SPOT_CALLS / float(max(1, (expected - 2) * eligible)))
                    elif changes.active:
                        # Drawn after the replay ran: nothing the block did could know which.
                        kept += changes.keep(_unaliased(outs, iters, k), keep)
                changes.restore()
                outs = {}
                start = time.perf_counter()
                for i in range(iters):
                    outs[i % k] = self.call(self.sets[i % k])
                samples += ((time.perf_counter() - start) * 1e3 / iters,)
            self.spot_mismatch = changes.check(kept)
            self.inputs_changed = changes.changed
            self.spot_checked = len(kept)
            return samples, "wall", None, _unaliased(outs, iters, k), None, 0
        side = t.cuda.Stream()
        side.wait_stream(t.cuda.current_stream())
        with t.cuda.stream(side):
            for i in range(3):
                self.call(self.sets[i % k])
        t.cuda.current_stream().wait_stream(side)
        t.cuda.synchronize()
        note = None
        graph = None
        outs = {}
        if timer == "events":
            note = "events timer around a plain block, asked for by verify so that both sides use one timer"
        else:
            try:
                graph = _graph_keeping_nodes(t)
                with t.cuda.graph(graph[0]):
                    for i in range(iters):
                        outs[i % k] = self.call(self.sets[i % k])
                shared = _overwritten(outs, iters, k)
                if shared:
                    raise _StaticOutputs(shared)
                if graph[1]:
                    # Read the nodes before instantiation: a window set only while capturing leaves
                    # no trace on the stream afterwards, only on the kernel nodes it was copied into.
                    persisting = _graph_l2_violation(graph[0])
                    if persisting:
                        raise _Invalid(persisting)
                    graph[0].instantiate()
                graph[0].replay()
                t.cuda.synchronize()
                warm_start = time.perf_counter()
                graph[0].replay()
                t.cuda.synchronize()
                block_s = time.perf_counter() - warm_start
            except _Invalid:
                raise
            except Exception as e:
                why = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
                if "unjoined" in why.lower():
                    # Work forked onto a stream that never joins back: what the block returns is
                    # not what it computed by the time it returns.
                    raise _Invalid("CUDA graph capture failed because fn forks work onto a stream that never "
                                   "joins the calling stream (%s): join it (wait_stream) before returning" % why)
                if isinstance(e, _StaticOutputs):
                    note = "%s; timed events around a plain block" % e
                else:
                    note = "CUDA graph capture failed (%s); timed events around a plain block" % why
                _log(note)
                try:
                    t.cuda.synchronize()
                except Exception:
                    pass
                graph = None
                outs = {}
        if graph is not None:
            run_block = graph[0].replay
            timer = "graph"
        else:
            def run_block():
                for i in range(iters):
                    outs[i % k] = self.call(self.sets[i % k])
            warm_start = time.perf_counter()
            run_block()
            t.cuda.synchronize()
            block_s = time.perf_counter() - warm_start
            timer = "events"
        # How many back-to-back replays the bracketed judged replay makes (_witness).
        # A replay of fewer calls than iters (calls) may be replayed as many more times, so that a
        # small block still fills the bracket as one of iters calls would.
        most = MAX_REPLAYS * max(1, self.definition["iters"] // max(1, iters))
        self.bracket_replays = max(1, min(most, int(math.ceil(BRACKET_S / max(block_s, 1e-6)))))
        window = _witness_window(t, self.device)[0]
        refs = self.refs
        samples = ()
        windows = 0
        for r in range(REPLAYS):
            if r:
                # Protocol 5 (issue 41): the inputs change between timed replays, outside the timed
                # region, so "nothing changed since the last replay" is never true: drawn from a
                # seed nobody knows in advance, the last replay from the run's own (its outputs are
                # checked against the references).
                self.fill(run, None if r == REPLAYS - 1 else _fresh_judge_seed(), refs=False)
            # Each timed replay in a witness window of its own: the GPU's time of the replay is
            # the one verify compares (the events below are only held against it).
            if window is not None and not window(1):
                window = None
            start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
            start.record()
            run_block()
            end.record()
            end.synchronize()
            if window is not None:
                window(0)
                windows += 1
            samples += (start.elapsed_time(end) / iters,)
        t.cuda.synchronize()
        self.refs = refs
        if graph is None:
            # A plain block's judged replay calls fn afresh (judged_replay), not this closure.
            return samples, timer, note, _unaliased(outs, iters, k), None, windows
        return samples, timer, note, outs, run_block, windows

    def judged_calls(self, kept):
        """The judged replay of a plain block: its calls once more, each call's outputs copied before
        fn is called again (what the contract promises about an output's lifetime, docs/contract.md).
        kept becomes {set: (call index, returned outputs, their copies)}; "owners" maps each returned
        storage to the last call that returned it."""
        iters, k = self.calls, self.k
        kept.clear()
        owners = {}
        for i in range(iters):
            out = self.call(self.sets[i % k])
            kept[i % k] = (i, out, _copies(out))
            for p in _storages(out) - {None}:
                owners[p] = i
        kept["owners"] = owners

    def graph_outputs(self, outs):
        """kept (as judged_calls makes it) for a graph's judged replay: its outputs are the graph's
        own memory, which no later call writes (_StaticOutputs keeps such blocks off the graph)."""
        iters, k = self.calls, self.k
        kept = {s: (_last_call(s, iters, k), out, _copies(out)) for s, out in outs.items()}
        kept["owners"] = {}
        return kept

    def settled(self, kept):
        """{set: outputs as their calls returned them}, after checking that no work went on in them
        later: waits until the process's other threads are quiet (_settle), then compares each output
        that no later call returned again with its copy. A difference means something (a thread, a
        stream nobody joined) wrote the output after its call had returned, so the time the timer saw
        did not include that work: _Invalid. Threads that touch no output change nothing here."""
        t = self.torch
        owners = kept.pop("owners")
        _settle()
        if self.device == "cuda":
            t.cuda.synchronize()
        judged = {}
        for s, (call, out, copies) in sorted(kept.items()):
            judged[s] = out if copies is None else copies
            for j, (o, c) in enumerate(zip(_as_list(out) or [], copies or [])):
                storage = _storage_address(o) if o.numel() else None
                # None: empty, or memory a later call took over (its copy was taken before that call).
                if storage is None or owners.get(storage, call) > call:
                    continue
                if not t.equal(_raw_bytes(t, o), _raw_bytes(t, c)):
                    raise _Invalid("output %d of rotated set %d changed after fn returned it (judged replay, call "
                                   "%d): work on it went on outside the timed call; finish every output (join "
                                   "threads and streams) before fn returns" % (j, s, call))
        if self.device == "cuda":
            t.cuda.synchronize()
        return judged

    def identity(self):
        d = self.definition
        fields = {
            "protocol": PROTOCOL,
            "target": d["name"],
            "shape": d["inputs"][0]["shape"],
            "dtype": d["dtype"],
            "seed": d["seed"],
            "iters": d["iters"],
            "rotate": d["rotate"],
            "rotate_k": getattr(self, "k", None),
            "flops": d["flops"],
            "bytes": self.bytes(),
            "device": self.device,
            "device_name": self.device_name,
            "l2_bytes": self.l2_bytes,
            "target_sha256": self.target_sha,
            "contract_sha256": self.contract_sha,
        }
        fields.update(self.versions)
        return fields

    def bytes(self):
        if self.sets is None or self.out_bytes is None:
            return None
        moved = self.definition["min_bytes"]
        if moved is None:
            moved = sum(a.numel() * a.element_size() for a in self.args(self.sets[0]))
        return int(moved + self.out_bytes)

    def _poison(self, outs):
        t = self.torch
        for out in outs.values():
            for o in _as_list(out) or []:
                o.data.fill_(float("nan") if o.is_floating_point() else _INT_SENTINEL)

    def _inputs_digest(self):
        """sha256 of a fingerprint of the judged inputs of set 0, taken where they live: per input its
        dtype, shape, the int64 sum of its bytes read as 32-bit words (bytes when it does not divide),
        and _DIGEST_SAMPLE evenly spaced words. The baseline draws the same bytes from the same judge
        seed, so a line not computed on these inputs cannot carry the baseline's fingerprint. (Copying
        and hashing every byte on the host cost about 0.25 s per 128 MiB per side per pair.)"""
        h = hashlib.sha256()
        t = self.torch
        try:
            for a in self.args(self.sets[0]):
                raw = a.detach().contiguous().reshape(-1).view(t.uint8)
                try:
                    words = raw.view(t.int32)
                except RuntimeError:  # a size or storage offset not a multiple of 4
                    words = raw
                total = int(words.sum(dtype=t.int64)) if words.numel() else 0
                step = max(1, words.numel() // _DIGEST_SAMPLE)
                sample = words[::step][:_DIGEST_SAMPLE].cpu().numpy().tobytes()
                h.update(json.dumps([_dtype_name(a.dtype), list(a.shape), total, words.numel()]).encode("utf-8"))
                h.update(sample)
        except Exception as e:
            _log("cannot fingerprint the judged inputs (%s): the core will not compare them" % e)
            return None
        return h.hexdigest()

    def judge(self, run, judge_seed, path):
        """The answer of the judge outside the candidate's process: the judged outputs another
        process wrote to path (_write_judged) against this process's references for judge_seed.
        Missing or malformed files, outputs that do not have the reference's shapes and dtype, and
        a header for other inputs are `invalid`; values out of tolerance are a mismatch."""
        t = self.torch
        answer = {"protocol": PROTOCOL, "event": "judged", "run": run, "judge_seed": judge_seed, "judged_ok": False,
                  "max_err": None, "mismatch": None, "invalid": None}
        steps = _StepClock()
        try:
            if self.judged_inputs is None or self.judged_inputs[0] != judge_seed:
                # The baseline's own run of the pair drew these inputs already; otherwise draw them.
                self.fill(run, judge_seed)
                self.judged_inputs = (judge_seed, self._inputs_digest())
            steps.lap("judge_fill")
            header, tensors = _read_judged(t, path, judge_seed, self.judged_inputs[1], run,
                                           locked=self.device == "cuda", answer=answer)
            steps.lap("judge_read")
            sets = {}
            for k, j, tensor in tensors:
                sets.setdefault(k, []).append((j, tensor))
            expected = list(range(min(self.calls, self.k)))
            if sorted(sets) != expected:
                raise _JudgedFileError("%s holds rotated sets %s, the timed block returns sets %s"
                                       % (path, sorted(sets), expected))
            worst = 0.0
            with t.no_grad():
                for k in expected:
                    outs = [tensor for _, tensor in sorted(sets[k], key=lambda e: e[0])]
                    ref = self.refs[k]
                    if len(outs) != len(ref):
                        raise _JudgedFileError("%s: set %d has %d outputs, the reference %d"
                                               % (path, k, len(outs), len(ref)))
                    for o, r in zip(outs, ref):
                        if list(o.shape) != list(r.shape) or o.dtype != self.torch_dtype:
                            raise _JudgedFileError(
                                "%s: set %d holds a %s output of shape %s, the target needs %s of shape %s"
                                % (path, k, _dtype_name(o.dtype), list(o.shape), _dtype_name(self.torch_dtype),
                                   list(r.shape)))
                    good, err, why = self.check([o.to(self.device) for o in outs], k,
                                                ", judged outside the candidate's process with judge seed %d"
                                                % judge_seed)
                    if err is not None:
                        worst = max(worst, err)
                    if not good:
                        answer.update({"max_err": worst, "mismatch": why})
                        return answer
            steps.lap("judge_check")
            answer.update({"judged_ok": True, "max_err": worst, "steps_ms": steps.ms})
        except _JudgedFileError as e:
            answer["invalid"] = str(e)
        except TargetError:
            raise
        except Exception as e:
            traceback.print_exc()
            answer["invalid"] = "the judge could not read %s: %s: %s" % (path, type(e).__name__, e)
        return answer

    def run(self, run, judge_seed=None, judge_dir=None, timer=None, bracket=False):
        """The result line of run index `run`; the judged replay draws its inputs from judge_seed
        (random when not given). With judge_dir, the judged replay's outputs are written there for
        a judge outside this process (_write_judged). timer: see time_block; bracket: see _Bracket."""
        t = self.torch
        if judge_seed is None:
            judge_seed = _fresh_judge_seed()
        steps = _StepClock()
        self.fill(run)
        steps.lap("fill")
        line = {"protocol": PROTOCOL, "ok": False, "ms": None, "timer": None, "timer_note": None,
                "samples_ms": [], "run": run}
        line.update(self.identity())
        line.update({"max_err": None, "mismatch": None, "invalid": None,
                     "judge_seed": None if judge_seed == "late" else judge_seed,
                     "judge_inputs_sha256": None, "judge_file": None, "witness_replays": 0, "witness_note": None,
                     "timed_windows": 0, "calls": self.calls})
        ok, worst, mismatch = False, 0.0, None
        dtype_ctx = _Tf32(t, self.definition["dtype"] == "tf32")
        try:
            _l2_reset(t, self.device)
            with t.no_grad(), dtype_ctx:
                # Lazily: a set is called only while the ones before it matched.
                ok, worst, mismatch = self.check_each((k, self.call(s)) for k, s in enumerate(self.sets))
                if self.device == "cuda":
                    t.cuda.synchronize()
                steps.lap("check")
                samples, timer, note, outs, run_block, line["timed_windows"] = self.time_block(timer, run, bracket)
                steps.lap("time")
                if ok:
                    where = ", CUDA graph replay" if timer == "graph" else ", timed block"
                    ok, err, mismatch = self.check_each(sorted(outs.items()), where)
                    worst = max(worst, err)
                if ok and getattr(self, "spot_mismatch", None):
                    ok, mismatch = False, self.spot_mismatch
                line["inputs_changed"] = getattr(self, "inputs_changed", 0)
                line["spot_checked"] = getattr(self, "spot_checked", 0)
                steps.lap("timed_check")
                # The judged replay: the same graph (or block) once more, untimed, on inputs
                # refilled in place from a seed nobody knew before this run, into poisoned outputs.
                if judge_seed == "late":
                    judge_seed = _ask_judge_seed(run)
                    line["judge_seed"] = judge_seed
                self._poison(outs)
                # With a judge outside this process (judge_dir), that judge checks the judged outputs
                # against its own references: checking them here as well would only cost time.
                outside_judge = judge_dir is not None
                self.fill(run, judge_seed, refs=not outside_judge)
                steps.lap("judged_fill")
                line["judge_inputs_sha256"] = self._inputs_digest()
                # Only inputs with references can be judged here later (judge()).
                self.judged_inputs = None if outside_judge else (judge_seed, line["judge_inputs_sha256"])
                steps.lap("inputs_digest")
                # Under the GPU tracer's witness window: the core compares the kernels' busy time
                # with the reported one (issue 19).
                kept = {}
                if run_block is None:
                    def run_block():
                        self.judged_calls(kept)
                line["witness_replays"], line["witness_note"] = _witness(
                    t, self.device, run_block, run, bracket, getattr(self, "bracket_replays", 1))
                if not kept:
                    kept = self.graph_outputs(outs)
                steps.lap("judged_replay")
                outs = self.settled(kept)
                steps.lap("judged_settle")
                if ok and not outside_judge:
                    where = ", judged replay of the %s with judge seed %d" % (
                        "CUDA graph" if timer == "graph" else "timed block", judge_seed)
                    ok, err, mismatch = self.check_each(sorted(outs.items()), where)
                    worst = max(worst, err)
                steps.lap("judged_check")
                if ok and judge_dir is not None:
                    line["judge_file"] = _write_judged(t, judge_dir, run, judge_seed, line["judge_inputs_sha256"],
                                                       self.target_sha, outs)
                    steps.lap("judged_write")
                l2 = _l2_violation(t, self.device)
                if l2:
                    raise _Invalid(l2)
        except TargetError:
            raise
        except _Invalid as e:
            line.update({"ok": False, "invalid": str(e), "mismatch": str(e)})
            return line
        except Exception as e:
            traceback.print_exc()
            line.update({"ok": False, "max_err": None, "mismatch": "fn raised %s: %s" % (
                type(e).__name__, str(e).splitlines()[0] if str(e) else "")})
            return line
        notes = [n for n in (note, getattr(self, "rotate_note", None)) if n]
        line.update({"ok": ok, "ms": statistics.median(samples), "timer": timer, "timer_note": "; ".join(notes) or None,
                     "samples_ms": samples, "max_err": worst, "mismatch": mismatch, "steps_ms": steps.ms})
        return line


# --- the judge outside the candidate's process (protocol 4) ----------------------------------------
# The judged replay's outputs leave the candidate's process as one file per run: a JSON header line,
# then the raw bytes of every output in the header's order. The baseline worker, which never imported
# the candidate, compares them against its own references for the same judge seed.
# Outputs on a CUDA device travel by CUDA IPC instead (transport "cuda_ipc"): the candidate copies
# each into an allocation of its own and the header carries that allocation's IPC handle; the judge
# copies it into its own memory before it compares. Through a file, 64 MiB cost 100-135 ms a run on
# the H100 (docs/measurements/session-speed-2026-12-06-0533.txt), by IPC under 1 ms
# (session-speed-2026-12-06-0559.txt). HOTKERNEL_JUDGE_TRANSPORT=file sends every byte through the file.
JUDGED_FORMAT = "hotkernel-judged-outputs"
_JUDGED_IPC = "cuda_ipc"
# The copies the judge opens by IPC stay allocated here until the next judged write.
_KEPT_FOR_JUDGE = []
# Only a worker outlives its run line, and IPC memory lives only as long as its process: a fresh
# run (one process per run, `--judge-dir`) exits before the judge reads, so it sends the file.
_OUTLIVES_RUN = False
# Header dtype names: torch's own (str(dtype) without "torch."), and their element sizes.
_JUDGED_DTYPES = {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8, "int8": 1, "uint8": 1, "int16": 2,
                  "int32": 4, "int64": 8, "bool": 1}
# A header line longer than this is not a header (the core reads at most this much too).
_JUDGED_HEADER_MAX = 1024 * 1024


def judged_file_name(run):
    return "run-%d.judged" % run


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _write_judged(torch, judge_dir, run, judge_seed, inputs_sha256, target_sha, outs):
    """Writes the judged outputs (after the judged replay: outside the timed region) to
    judge_dir/run-RUN.judged, their bytes or their CUDA IPC handles (_judged_transport), and returns
    the file's name. A failure is the run's invalid."""
    entries, flats = [], []
    for k, out in sorted(outs.items()):
        for j, o in enumerate(_as_list(out) or []):
            # Bytes through uint8, so that dtypes numpy lacks (bfloat16) travel as they are.
            flat = o.detach().contiguous().reshape(-1).view(torch.uint8) if o.numel() else None
            entries.append({"set": k, "index": j, "dtype": _dtype_name(o.dtype), "shape": list(o.shape),
                            "bytes": o.numel() * o.element_size()})
            flats.append(flat)
    transport = _judged_transport(flats)
    del _KEPT_FOR_JUDGE[:]
    blobs = []
    if transport == _JUDGED_IPC:
        try:
            for entry, flat in zip(entries, flats):
                if flat is not None:
                    entry["ipc"] = _share_with_judge(torch, flat)
            torch.cuda.synchronize()  # the copies are whole before the judge opens them
        except RuntimeError as e:
            raise _Invalid("cannot share the judged outputs with the judge by CUDA IPC (%s); set "
                           "HOTKERNEL_JUDGE_TRANSPORT=file to send them through a file" % e)
    else:
        blobs = _host_bytes(torch, flats)
    header = {"format": JUDGED_FORMAT, "protocol": PROTOCOL, "run": run, "judge_seed": judge_seed,
              "judge_inputs_sha256": inputs_sha256, "target_sha256": target_sha, "transport": transport,
              "outputs": entries}
    name = judged_file_name(run)
    path = os.path.join(judge_dir, name)
    partial = path + ".partial"
    try:
        with open(partial, "wb") as f:
            f.write(json.dumps(header, separators=(",", ":")).encode("utf-8") + b"\n")
            for raw in blobs:
                if raw is not None:
                    f.write(memoryview(raw))
        os.replace(partial, path)
    except OSError as e:
        raise _Invalid("cannot write the judged outputs to %s (%s): the judge outside this process has nothing "
                       "to judge" % (path, e))
    return name


def _judged_transport(flats):
    """"cuda_ipc" when every judged output lives on a CUDA device and this process is a worker (and
    the user did not ask for the file), else "file"."""
    if os.environ.get("HOTKERNEL_JUDGE_TRANSPORT") == "file" or not _OUTLIVES_RUN:
        return "file"
    present = [f for f in flats if f is not None]
    return _JUDGED_IPC if present and all(f.device.type == "cuda" for f in present) else "file"


def _share_with_judge(torch, flat):
    """The header's "ipc" entry for the uint8 device tensor flat: a copy of it in an allocation of
    this process's (kept in _KEPT_FOR_JUDGE), named by its CUDA IPC handle."""
    kept = flat.clone()
    _KEPT_FOR_JUDGE.append(kept)
    (device, handle, storage_bytes, storage_offset, ref_counter, ref_counter_offset, event,
     event_sync) = kept.untyped_storage()._share_cuda_()

    def hexed(raw):
        return raw.hex() if isinstance(raw, (bytes, bytearray)) else None

    return {"device": int(device), "handle": hexed(handle), "storage_bytes": int(storage_bytes),
            "storage_offset": int(storage_offset), "tensor_offset": int(kept.storage_offset()),
            "ref_counter": hexed(ref_counter), "ref_counter_offset": int(ref_counter_offset),
            "event": hexed(event), "event_sync": bool(event_sync)}


def _open_shared(torch, path, entry):
    """The judge's own copy (uint8, on its device) of an output the candidate shared by CUDA IPC;
    raises _JudgedFileError when the entry is malformed or the handle does not open."""
    ipc = entry.get("ipc")
    where = "%s: output %s of set %s" % (path, entry.get("index"), entry.get("set"))
    fields = ("device", "storage_bytes", "storage_offset", "tensor_offset", "ref_counter_offset")
    if (not isinstance(ipc, dict) or not all(isinstance(ipc.get(k), int) and ipc[k] >= 0 for k in fields)
            or not isinstance(ipc.get("handle"), str) or not isinstance(ipc.get("ref_counter"), str)
            or not isinstance(ipc.get("event_sync"), bool)
            or not (ipc.get("event") is None or isinstance(ipc.get("event"), str))):
        raise _JudgedFileError("%s has no usable CUDA IPC entry: %r" % (where, ipc))
    size = entry["bytes"]
    if ipc["tensor_offset"] + size > ipc["storage_bytes"] or ipc["device"] >= torch.cuda.device_count():
        raise _JudgedFileError("%s: %d bytes at %d do not lie in its shared allocation of %d bytes on device %d"
                               % (where, size, ipc["tensor_offset"], ipc["storage_bytes"], ipc["device"]))
    try:
        storage = torch.UntypedStorage._new_shared_cuda(
            ipc["device"], bytes.fromhex(ipc["handle"]), ipc["storage_bytes"], ipc["storage_offset"],
            bytes.fromhex(ipc["ref_counter"]), ipc["ref_counter_offset"],
            bytes.fromhex(ipc["event"]) if ipc["event"] is not None else None, ipc["event_sync"])
        view = torch.empty(0, dtype=torch.uint8, device="cuda:%d" % ipc["device"])
        view.set_(storage, ipc["tensor_offset"], (size,), (1,))
        own = view.clone()
        torch.cuda.synchronize()
    except (RuntimeError, ValueError, TypeError) as e:
        raise _JudgedFileError("%s cannot be opened by CUDA IPC (%s)" % (where, e))
    return own


# An honest handle opens in milliseconds; a forged one can block the CUDA driver for good.
_IPC_OPEN_LIMIT_S = 20


class _Stall:
    """Within this block for longer than `seconds`: sends `answer` with `why` as its invalid and ends
    the process, as nothing else can end a call blocked in the driver. The core then reads an
    invalid verdict, not a hang until the worker's timeout."""

    def __init__(self, seconds, answer, why):
        self.seconds, self.answer, self.why = seconds, answer, why
        self.done = threading.Event()
        self.thread = None

    def __enter__(self):
        if self.answer is not None:
            self.thread = threading.Thread(target=self._watch, name="hotkernel-judge-stall", daemon=True)
            self.thread.start()
        return self

    def _watch(self):
        if not self.done.wait(self.seconds):
            self.answer["invalid"] = self.why
            _log(self.why)
            _emit(self.answer)
            os._exit(3)

    def __exit__(self, *exc):
        self.done.set()
        if self.thread is not None:
            self.thread.join()
        return False


# Page-locked host buffers, one per use, kept by the process and grown as needed. From the device
# into fresh pageable memory, 64 MiB took 58 ms on the H200 (the pages are faulted in as the copy
# goes); into a kept locked buffer it is a plain DMA (docs/measurements/judge-handoff-2026-12-06-0520.txt).
_LOCKED = {}


def _locked_buffer(torch, use, size):
    """A page-locked uint8 host tensor of at least size bytes, reused call after call for `use`;
    None when the memory cannot be locked (then pageable memory serves, only slower)."""
    buf = _LOCKED.get(use)
    if buf is None or buf.numel() < size:
        _LOCKED.pop(use, None)
        try:
            buf = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        except RuntimeError:
            return None
        _LOCKED[use] = buf
    return buf[:size]


def _host_bytes(torch, flats):
    """numpy views of the uint8 tensors flats (None stays None) in host memory: device tensors go
    through one locked staging buffer, all copies queued before one wait."""
    on_device = [f for f in flats if f is not None and f.device.type != "cpu"]
    staging = _locked_buffer(torch, "judged_write", sum(f.numel() for f in on_device)) if on_device else None
    blobs, offset = [], 0
    for f in flats:
        if f is None:
            blobs.append(None)
        elif f.device.type == "cpu":
            blobs.append(f.numpy())
        elif staging is None:
            blobs.append(f.cpu().numpy())
        else:
            part = staging[offset:offset + f.numel()]
            part.copy_(f, non_blocking=True)
            offset += f.numel()
            blobs.append(part.numpy())
    if staging is not None:
        torch.cuda.synchronize()
    return blobs


class _JudgedFileError(Exception):
    """The judged-outputs file is missing, truncated or malformed: the verdict is invalid."""


def _read_judged(torch, path, judge_seed, inputs_sha256, run, locked=False, answer=None):
    """(header, [(set, index, tensor)]) from a judged-outputs file, checked against what the judge
    expects; raises _JudgedFileError saying what is wrong. locked: read into the kept page-locked
    buffer (a judge on the GPU), so that the tensors go to the device by DMA; they are valid until
    the next call. answer: the judge's answer, sent as invalid should opening a CUDA IPC handle
    stall (_Stall)."""
    try:
        # Written by the candidate's process: never followed through a link, never waited on.
        with _open_regular(path, follow=False) as f:
            head = f.readline(_JUDGED_HEADER_MAX)
            header, layout = _judged_header(path, head, judge_seed, inputs_sha256, run)
            shared = header.get("transport") == _JUDGED_IPC
            listed = 0 if shared else sum(size for _, _, _, _, size in layout)
            # Sizes first: the file was written by the candidate's process, so its size decides
            # nothing until it agrees with the header (and no huge file is read in vain).
            found = os.fstat(f.fileno()).st_size - len(head)
            if found != listed:
                raise _JudgedFileError("%s holds %d bytes of outputs, its header lists %d (%s)" % (
                    path, found, listed, "truncated" if found < listed else "bytes appended"))
            # Read straight into the memory the tensors view: no zero-filled buffer first (a
            # bytearray of 64 MiB doubled the read's time on the H200).
            payload = _locked_buffer(torch, "judge_read", listed) if locked and listed else None
            if payload is None:
                payload = torch.empty(listed, dtype=torch.uint8)
            if (listed and f.readinto(memoryview(payload.numpy())) != listed) or f.read(1):
                raise _JudgedFileError("%s changed size while the judge read it" % path)
    except OSError as e:
        raise _JudgedFileError("cannot read the judged outputs %s (%s)" % (path, e))
    tensors, offset = [], 0
    for (k, j, dtype, shape, size), entry in zip(layout, header["outputs"]):
        if shared:
            with _Stall(_IPC_OPEN_LIMIT_S, answer, "%s: output %d of set %d did not open by CUDA IPC within %d s (a "
                        "forged handle stalls the driver); this judge ends" % (path, j, k, _IPC_OPEN_LIMIT_S)):
                flat = _open_shared(torch, path, entry) if size else torch.empty(0, dtype=torch.uint8)
        else:
            flat = payload[offset:offset + size]
            offset += size
        tensors.append((k, j, flat.view(getattr(torch, dtype)).reshape(shape)))
    return header, tensors


def _judged_header(path, head, judge_seed, inputs_sha256, run):
    """(header, [(set, index, dtype, shape, bytes)]) of a judged-outputs header line."""
    if not head.endswith(b"\n"):
        raise _JudgedFileError("%s has no header line (empty or truncated file)" % path)
    try:
        header = json.loads(head.decode("utf-8"))
    except ValueError as e:
        raise _JudgedFileError("%s: the header is not JSON (%s)" % (path, e))
    if not isinstance(header, dict) or header.get("format") != JUDGED_FORMAT:
        raise _JudgedFileError("%s is not a judged-outputs file (format is not %s)" % (path, JUDGED_FORMAT))
    if header.get("protocol") != PROTOCOL:
        raise _JudgedFileError("%s speaks protocol %r, this contract %d" % (path, header.get("protocol"), PROTOCOL))
    if header.get("run") != run:
        raise _JudgedFileError("%s holds run %r, not run %d" % (path, header.get("run"), run))
    if header.get("judge_seed") != judge_seed:
        raise _JudgedFileError("%s was judged with seed %r, not this run's judge seed %d"
                               % (path, header.get("judge_seed"), judge_seed))
    if header.get("judge_inputs_sha256") != inputs_sha256:
        raise _JudgedFileError("%s claims judged inputs %s, but judge seed %d draws %s: the outputs were not "
                               "computed on the judged inputs" % (path, str(header.get("judge_inputs_sha256"))[:12],
                                                                  judge_seed, str(inputs_sha256)[:12]))
    if header.get("transport", "file") not in ("file", _JUDGED_IPC):
        raise _JudgedFileError("%s: unknown transport %r" % (path, header.get("transport")))
    entries = header.get("outputs")
    if not isinstance(entries, list) or not entries:
        raise _JudgedFileError("%s lists no outputs" % path)
    layout = []
    for e in entries:
        if not isinstance(e, dict):
            raise _JudgedFileError("%s: an output entry is not an object" % path)
        dtype, shape, size = e.get("dtype"), e.get("shape"), e.get("bytes")
        if dtype not in _JUDGED_DTYPES:
            raise _JudgedFileError("%s: output dtype %r is not one the judge reads" % (path, dtype))
        if (not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape)
                or not isinstance(e.get("set"), int) or not isinstance(e.get("index"), int)):
            raise _JudgedFileError("%s: an output entry has a bad shape, set or index: %r" % (path, e))
        numel = 1
        for d in shape:
            numel *= d
        if size != numel * _JUDGED_DTYPES[dtype]:
            raise _JudgedFileError("%s: output %d of set %d says %r bytes, its shape %s of %s needs %d"
                                   % (path, e["index"], e["set"], size, shape, dtype, numel * _JUDGED_DTYPES[dtype]))
        layout.append((e["set"], e["index"], dtype, shape, size))
    return header, layout


# --- what the judge trusts -----------------------------------------------------------------------
# Integer outputs are poisoned with this before the judged replay (floats with NaN).
_INT_SENTINEL = -77


def _require_plain(torch, outs, suffix):
    """Judged outputs must be exact torch.Tensor: a subclass or a mode could compute lazily when
    the check reads it, or answer the check with something other than what the block wrote."""
    for o in outs:
        if type(o) is not torch.Tensor:
            raise _Invalid("fn returned a %s.%s, a subclass of torch.Tensor%s: return plain torch.Tensor outputs"
                           % (type(o).__module__, type(o).__qualname__, suffix))
    modes = getattr(torch._C, "_len_torch_dispatch_stack", None)
    if modes is not None and modes() > 0:
        raise _Invalid("a __torch_dispatch__ mode is active while the outputs are judged%s: fn must not leave "
                       "one behind" % suffix)
    tf_mode = getattr(torch._C, "_is_torch_function_mode_enabled", None)
    if tf_mode is not None and tf_mode():
        raise _Invalid("a __torch_function__ mode is active while the outputs are judged%s: fn must not leave "
                       "one behind" % suffix)


def _fresh_function(path, name):
    """name from the file at path executed as a new module that is not in sys.modules, or None."""
    if not path or not os.path.isfile(path):
        return None
    _EXTRA_SOURCES.add(os.path.abspath(path))
    spec = importlib.util.spec_from_file_location("_hotkernel_fresh_" + _sha256_hex(path.encode())[:12], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name, None)


_CUDA_LIMIT_PERSISTING_L2 = 0x06
_CUDA_STREAM_ATTR_ACCESS_POLICY_WINDOW = 1
_CUDA_ACCESS_PROPERTY_PERSISTING = 2
_cudart_lib = None


def _cudart():
    """The CUDA runtime torch loaded (ctypes), or None."""
    global _cudart_lib
    if _cudart_lib is None:
        import ctypes
        path = None
        try:
            maps = _read_regular("/proc/self/maps", 64 * 1024 * 1024).decode(errors="replace")
            for entry in maps.splitlines():
                if "libcudart" in entry:
                    path = entry.split()[-1]
                    break
        except OSError:
            pass
        for candidate in ([path] if path else []) + ["libcudart.so.12", "libcudart.so"]:
            try:
                _cudart_lib = ctypes.CDLL(candidate)
                break
            except OSError:
                continue
        else:
            _cudart_lib = False
    return _cudart_lib or None


def _l2_reset(torch, device):
    """No persisting L2 lines before timing: limit 0, persisting lines reset."""
    if device != "cuda":
        return
    import ctypes
    lib = _cudart()
    if lib is None:
        _log("cannot load the CUDA runtime: the persisting L2 limit is not reset")
        return
    lib.cudaDeviceSetLimit(ctypes.c_int(_CUDA_LIMIT_PERSISTING_L2), ctypes.c_size_t(0))
    lib.cudaCtxResetPersistingL2Cache()


def _l2_violation(torch, device):
    """A sentence when fn raised the persisting L2 limit or left a persisting access-policy window
    on the current stream, else None."""
    if device != "cuda":
        return None
    import ctypes
    lib = _cudart()
    if lib is None:
        return None
    limit = ctypes.c_size_t(0)
    if lib.cudaDeviceGetLimit(ctypes.byref(limit), ctypes.c_int(_CUDA_LIMIT_PERSISTING_L2)) == 0 and limit.value:
        return ("fn raised cudaLimitPersistingL2CacheSize to %d bytes: persisting L2 lines survive the cache "
                "flush between timed calls, so the time is not the kernel's; remove the L2 persistence" % limit.value)
    # cudaStreamAttrValue: a union led by cudaAccessPolicyWindow {base_ptr, num_bytes, hitRatio,
    # hitProp, missProp}; 64 bytes covers every version's union.
    value = (ctypes.c_ubyte * 64)()
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    if lib.cudaStreamGetAttribute(stream, ctypes.c_int(_CUDA_STREAM_ATTR_ACCESS_POLICY_WINDOW), value) == 0:
        num_bytes = ctypes.c_size_t.from_buffer(value, 8).value
        hit_prop = ctypes.c_int.from_buffer(value, 20).value
        if num_bytes and hit_prop == _CUDA_ACCESS_PROPERTY_PERSISTING:
            return ("fn set a persisting L2 access-policy window of %d bytes on the timing stream "
                    "(cudaStreamAttributeAccessPolicyWindow, hitProp Persisting): remove it" % num_bytes)
    return None


# Witnessed replays per run without a bracket: the judged replay, which is already `iters` calls of
# the block. One replay serving both the judge and the witness also makes the judged graph the
# witnessed one by construction.
WITNESS_REPLAYS = 1


class _InputChanges:
    """The CPU block's rotated inputs changed in place between timed replays (issue 41, class 8),
    exactly and reversibly: a floating tensor's top mantissa bits XORed with a mask (sign and
    exponent stay, so every value stays finite, of its sign and within its binade, yet moves by
    far more than any tolerance for almost every mask: an output computed for other inputs fails
    its check), an integer one shifted modulo its bound. Each replay's change is one no earlier
    replay of the run had, drawn when it is made. Inactive (nothing changes) for a target with
    derive (its call inputs may hold values a bit flip would break, such as infinities) or without
    rotated inputs; the guard table says so."""

    # (mantissa bits, top mantissa bits flipped) per dtype.
    _MANTISSA = {"bf16": (7, 7), "fp16": (10, 10), "fp32": (23, 16), "tf32": (23, 16), "fp64": (52, 20)}

    def __init__(self, bench):
        self.bench = bench
        self.torch = bench.torch
        d = bench.definition
        self.used = [bench.sets[j] for j in range(min(bench.k, bench.calls))]
        specs = {spec["name"]: spec for spec in d["inputs"]}
        self.names = [n for n in d["rotate"] if n in specs] if bench.derive is None else []
        self.specs = specs
        self.state = 0  # the current change: 0 is the run's own inputs
        self.seen = {0}
        self.changed = 0
        self.active = bool(self.names) and all(self._room(n) > 1 for n in self.names)

    def _room(self, name):
        spec = self.specs[name]
        if spec["dtype"] in INT_DTYPES:
            return int(spec["high"])
        return 1 << self._MANTISSA.get(spec["dtype"], (0, 0))[1]

    def _apply(self, state):
        """Moves every used set from the current change to state."""
        t = self.torch
        for name in self.names:
            spec = self.specs[name]
            room = self._room(name)
            for s in self.used:
                x = s[name].data
                if spec["dtype"] in INT_DTYPES:
                    wide = x.to(t.int64)
                    wide.add_((state - self.state) % room).remainder_(room)
                    x.copy_(wide)
                else:
                    view = {2: t.int16, 4: t.int32, 8: t.int64}[x.element_size()]
                    mantissa, flipped = self._MANTISSA[spec["dtype"]]
                    x.view(view).bitwise_xor_((self.state ^ state) << (mantissa - flipped))
        self.state = state

    def change(self):
        if not self.active:
            return
        room = min(self._room(n) for n in self.names)
        if len(self.seen) >= room:
            self.seen = {0, self.state}  # every change used: a long run of a tiny bound starts over
        state = 0
        while state in self.seen:
            state = 1 + _draw_below(room - 1)
        self.seen.add(state)
        self._apply(state)
        self.changed += 1

    def restore(self):
        if self.state:
            self._apply(0)

    def keep(self, outs, probability):
        """(state, set, copies of its outputs) for the calls of the replay that just ran (outs: set
        to the output its call returned, those a later call overwrote left out), each with the
        given probability."""
        kept = []
        for j, out in outs.items():
            if _draw_unit() < probability:
                copies = _as_list(out)
                kept.append((self.state, j, [o.detach().clone() for o in copies] if copies is not None else out))
        return kept

    def check(self, kept):
        """The first mismatch of a kept call against a reference for the inputs it saw, or None.
        Leaves the run's own inputs in place."""
        bench = self.bench
        try:
            for state, j, out in sorted(kept, key=lambda e: (e[0], e[1])):
                self._apply(state)
                # Through the same check as every other output, against the reference for the
                # inputs this call saw.
                saved = bench.refs[j]
                bench.refs[j] = bench._reference(bench.sets[j])
                try:
                    good, _, why = bench.check(out, j, ", a timed replay on changed inputs")
                finally:
                    bench.refs[j] = saved
                if not good:
                    return ("%s: a timed call returned other than its inputs give, so it did not compute them "
                            "(work skipped on inputs it had seen before they changed?)" % why)
            return None
        finally:
            self.restore()


def _witness_window(torch, device):
    """(window, note): hotkernel_tracer_witness of the tracer the CUDA driver injected, when the
    core asked for a witness (else None), and why there is none although the core asked."""
    if device != "cuda" or os.environ.get("HOTKERNEL_TRACE_WITNESS") != "1":
        return None, None
    import ctypes
    path = os.environ.get("CUDA_INJECTION64_PATH") or ""
    try:
        # Only the copy the CUDA driver injected: NOLOAD fails when the driver never loaded it.
        lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
        return lib.hotkernel_tracer_witness, None
    except (OSError, AttributeError):
        return None, "the GPU tracer is not loaded in this process (CUDA_INJECTION64_PATH=%s)" % (path or "unset")


def _witness(torch, device, run_block, run=0, bracket=False, bracket_replays=1):
    """(replays, note): runs the judged replay, inside a window of hotkernel's tracer when the core
    injected it in witness mode; replays is 0 when it was not witnessed, and note says why when
    the core had asked for a witness. On the GPU with bracket (protocol 5) the block is replayed
    bracket_replays times back to back inside the window and the core's bracket, nothing else:
    the witnessed span must then be most of the core's clock. Replaying the judged block again
    changes no output (its inputs stay the judged ones)."""
    window, note = _witness_window(torch, device)
    if window is not None:
        torch.cuda.synchronize()
        if not window(1):
            window = None
            note = "the GPU tracer refused to open a witness window (CUPTI unavailable; see stderr)"
    bracketed = bracket and device == "cuda"
    replays = bracket_replays if bracketed else WITNESS_REPLAYS
    try:
        with _Bracket(run, bracketed):
            for _ in range(replays):
                run_block()
            if device == "cuda":
                torch.cuda.synchronize()
    finally:
        if window is not None:
            window(0)
    return (replays if window is not None else 0), note


class _Bracket:
    """The core's clock around replays (protocol 5, issue 41): the judged replay on a GPU, the timed
    ones on a CPU. {"event": "armed"} on the protocol stream, then nothing runs until {"op": "go"}
    arrives on stdin; {"event": "done"} when the replays are over (also when fn raised in them: the
    core then reads the result line). The core times go to done itself, and a witnessed or reported
    total far below that bracket is not the replays' time. Inactive (a plain run of the script) when
    the core did not ask."""

    def __init__(self, run, active):
        self.run, self.active = run, active

    def __enter__(self):
        if not self.active:
            return self
        _ORIGINAL_EMIT({"event": "armed", "run": self.run})
        raw = sys.stdin.readline()
        try:
            answer = json.loads(raw)
        except ValueError:
            answer = None
        if not isinstance(answer, dict) or answer.get("op") != "go" or answer.get("run") != self.run:
            raise _Invalid("the core's go for the bracketed replays of run %d did not arrive (got %r on stdin): "
                           "something in the process read or replaced the worker's stdin" % (self.run, raw[:80]))
        return self

    def __exit__(self, *exc):
        if self.active:
            _ORIGINAL_EMIT({"event": "done", "run": self.run})
        return False


_CUDA_GRAPH_NODE_KERNEL = 0x00
_CUDA_GRAPH_NODE_CHILD_GRAPH = 0x04
_CUDA_KERNEL_NODE_ATTR_ACCESS_POLICY_WINDOW = 1


def _graph_keeping_nodes(torch):
    """(graph, kept): a CUDAGraph that keeps its cudaGraph_t after capture where torch can
    (keep_graph, torch 2.7 and later), so its kernel nodes can be read before instantiation."""
    try:
        graph = torch.cuda.CUDAGraph(keep_graph=True)
    except TypeError:
        _log("this torch cannot keep a captured graph's nodes: kernel-node L2 windows are not inspected")
        return torch.cuda.CUDAGraph(), False
    return graph, hasattr(graph, "raw_cuda_graph") and hasattr(graph, "instantiate")


def _graph_l2_violation(graph):
    """A sentence when a kernel node of the captured graph (or of a child graph) carries a
    persisting access-policy window, else None."""
    import ctypes
    lib = _cudart()
    if lib is None:
        return None
    pending = [ctypes.c_void_p(graph.raw_cuda_graph())]
    while pending:
        handle = pending.pop()
        count = ctypes.c_size_t(0)
        if lib.cudaGraphGetNodes(handle, None, ctypes.byref(count)) != 0 or not count.value:
            continue
        nodes = (ctypes.c_void_p * count.value)()
        if lib.cudaGraphGetNodes(handle, nodes, ctypes.byref(count)) != 0:
            continue
        for node in nodes[:count.value]:
            kind = ctypes.c_int(-1)
            if lib.cudaGraphNodeGetType(ctypes.c_void_p(node), ctypes.byref(kind)) != 0:
                continue
            if kind.value == _CUDA_GRAPH_NODE_CHILD_GRAPH:
                child = ctypes.c_void_p()
                if lib.cudaGraphChildGraphNodeGetGraph(ctypes.c_void_p(node), ctypes.byref(child)) == 0:
                    pending.append(child)
                continue
            if kind.value != _CUDA_GRAPH_NODE_KERNEL:
                continue
            # cudaKernelNodeAttrValue: the same 64-byte union as the stream attribute's.
            value = (ctypes.c_ubyte * 64)()
            if lib.cudaGraphKernelNodeGetAttribute(ctypes.c_void_p(node),
                                                   ctypes.c_int(_CUDA_KERNEL_NODE_ATTR_ACCESS_POLICY_WINDOW),
                                                   value) != 0:
                continue
            num_bytes = ctypes.c_size_t.from_buffer(value, 8).value
            hit_prop = ctypes.c_int.from_buffer(value, 20).value
            if num_bytes and hit_prop == _CUDA_ACCESS_PROPERTY_PERSISTING:
                return ("a kernel node of the captured graph carries a persisting L2 access-policy window of %d "
                        "bytes (set on the stream while capturing, or on the node): persisting lines survive "
                        "the cache flush between timed calls, so the time is not the kernel's; remove it" % num_bytes)
    return None


# The judged outputs are compared with the copies taken as their calls returned (_Bench.settled)
# once the process's other threads are quiet: at least the first bound (s), at most the second, and
# between, until two looks in a row _SETTLE_POLL_S apart find none of them runnable. A thread still
# finishing an output is runnable (or gets the interpreter lock as soon as the main thread sleeps);
# an idle pool or a monitor asleep between its wake-ups is not.
_SETTLE_S = (0.01, 0.5)
_SETTLE_POLL_S = 0.002


def _runnable_threads():
    """Ids of this process's threads other than the calling one that are running or runnable (state
    R in /proc); empty where /proc cannot say."""
    me = str(threading.get_native_id())
    found = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return found
    for tid in tasks:
        if tid == me:
            continue
        try:
            with open("/proc/self/task/%s/stat" % tid) as f:  # not a named file: the kernel's own record
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state == "R":
            found.append(tid)
    return found


def _settle():
    """Waits until no other thread of the process is runnable, within _SETTLE_S."""
    started = time.perf_counter()
    time.sleep(_SETTLE_S[0])
    quiet = 0
    while quiet < 2 and time.perf_counter() - started < _SETTLE_S[1]:
        quiet = quiet + 1 if not _runnable_threads() else 0
        time.sleep(_SETTLE_POLL_S)


class _StaticOutputs(Exception):
    """fn returned, within one block, outputs that a later call of the block overwrites (static
    buffers): a CUDA graph of the whole block cannot keep each call's output for the judge."""

    def __init__(self, sets):
        Exception.__init__(self, "fn returns outputs that its later calls overwrite (static buffers, as "
                           "torch.compile's reduce-overhead mode does; rotated set(s) %s), so one CUDA graph of the "
                           "block cannot keep each call's output for the judge" % ", ".join(str(x) for x in sets))


def _copies(out):
    """Copies of fn's tensor outputs (taken before fn is called again), or None when out is not
    tensors (the check then says what it is)."""
    outs = _as_list(out)
    return None if outs is None else [o.detach().clone() for o in outs]


def _storage_address(tensor):
    """Address of the memory behind tensor (torch before 2.0 has no untyped_storage), or None when
    its memory may no longer be read: torch.compile's CUDA graphs make an output they overwrote
    raise on access, which says that a later call returned that memory again."""
    try:
        get = getattr(tensor, "untyped_storage", None) or tensor.storage
        return get().data_ptr()
    except RuntimeError:
        return None


def _storages(out):
    """Addresses of the memory behind out's tensors (empty ones have none; None for one whose memory
    a later call took over)."""
    return {_storage_address(o) for o in (_as_list(out) or []) if o.numel()}


def _raw_bytes(torch, tensor):
    """tensor's bytes as a flat uint8 tensor: compared bit for bit, so that NaN equals NaN."""
    return tensor.detach().contiguous().reshape(-1).view(torch.uint8)


def _last_call(s, iters, k):
    """Index of the last call of a block of iters calls that runs rotated set s."""
    return s + ((iters - 1 - s) // k) * k


def _overwritten(outs, iters, k):
    """Sets of {set: output} (the block's last output of each set) whose memory a later call of the
    block returned again, so that what it holds now is that later call's."""
    latest = {}
    for s, out in outs.items():
        for p in _storages(out):
            latest[p] = max(latest.get(p, -1), _last_call(s, iters, k))
    return sorted(s for s, out in outs.items()
                  if any(p is None or latest[p] > _last_call(s, iters, k) for p in _storages(out)))


def _unaliased(outs, iters, k):
    """outs without the outputs a later call overwrote: an output lives until fn is called again, so
    after a block only those still hold what their call returned."""
    gone = set(_overwritten(outs, iters, k))
    return {s: out for s, out in outs.items() if s not in gone}


def _ask_judge_seed(run):
    """The judge seed of run `run`, asked of the core only now (worker protocol, docs/contract.md):
    the block is captured and timed, so nothing the candidate did could depend on it."""
    _ORIGINAL_EMIT({"event": "judge_seed", "run": run})
    raw = sys.stdin.readline()
    try:
        seed = json.loads(raw).get("judge_seed")
    except (ValueError, AttributeError):
        seed = None
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise _Invalid("the judge seed did not arrive (got %r on stdin): something in the process read or "
                       "replaced the worker's stdin" % raw[:80])
    return seed


def _code_of(obj):
    return getattr(obj, "__code__", None) or getattr(getattr(obj, "__func__", None), "__code__", None)


def _code_hash(obj):
    """A digest of what obj's code does, or None. Not marshal.dumps: marshal marks objects that
    something else also references, so the same code dumps differently once a constant of it (a note
    string, say) is held elsewhere: an honest run that kept the events timer's note looked patched."""
    code = _code_of(obj)
    if code is None:
        return None
    h = hashlib.sha256()

    def add(c):
        h.update(c.co_code)
        h.update(repr((c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars, c.co_argcount,
                       c.co_posonlyargcount, c.co_kwonlyargcount, c.co_flags)).encode())
        for const in c.co_consts:
            if hasattr(const, "co_code"):
                add(const)
            else:
                h.update(repr((type(const).__name__, const)).encode())
    add(code)
    return h.hexdigest()


def _guarded():
    """(name, getter) of every function a measurement trusts; getters read through the modules,
    so a replacement anywhere on the path shows."""
    g = [("time.perf_counter", lambda: time.perf_counter),
         ("statistics.median", lambda: statistics.median),
         ("json.dumps", lambda: json.dumps),
         ("os.write", lambda: os.write),
         ("os.urandom", lambda: os.urandom)]
    mod = sys.modules[__name__]
    for name in ("_emit", "_as_list", "_require_plain", "_l2_violation", "_l2_reset", "_graph_l2_violation",
                 "_graph_keeping_nodes", "_witness", "_witness_window", "_Bracket", "_ask_judge_seed", "_worker", "main",
                 "_integrity_violations", "_guarded", "_write_judged", "_read_judged", "_judged_header",
                 "_host_bytes", "_locked_buffer", "_judged_transport", "_share_with_judge", "_open_shared", "_Stall",
                 "_user_sources", "_source_sha256", "_copies", "_storage_address", "_storages", "_raw_bytes", "_runnable_threads", "_settle", "_last_call",
                 "_overwritten", "_unaliased", "_InputChanges", "_draw_below", "_draw_unit", "_fresh_judge_seed"):
        g.append(("contract " + name, lambda name=name: getattr(mod, name)))
    for name in ("run", "check", "check_each", "time_block", "fill", "call", "_reference", "_poison", "identity",
                 "_inputs_digest", "judge", "judged_calls", "graph_outputs", "settled"):
        g.append(("contract _Bench." + name, lambda name=name: getattr(mod._Bench, name)))
    for name in ("__init__", "_apply", "change", "restore", "keep", "check"):
        g.append(("contract _InputChanges." + name, lambda name=name: getattr(mod._InputChanges, name)))
    torch = sys.modules.get("torch")
    if torch is not None:
        g += [("torch.Tensor", lambda: torch.Tensor),
              ("torch.Tensor.__torch_function__", lambda: torch.Tensor.__dict__.get("__torch_function__")),
              ("torch.cuda.synchronize", lambda: torch.cuda.synchronize),
              # What _InputChanges changes the inputs with and keeps outputs by: a method made a
              # no-op would leave every block on the same inputs again.
              *[("torch.Tensor." + m, lambda m=m: getattr(torch.Tensor, m))
                for m in ("bitwise_xor_", "view", "add_", "remainder_", "copy_", "to", "clone", "detach")],
              ("torch.cuda.Event", lambda: torch.cuda.Event),
              ("torch.cuda.Event.record", lambda: torch.cuda.Event.record),
              ("torch.cuda.Event.synchronize", lambda: torch.cuda.Event.synchronize),
              ("torch.cuda.Event.elapsed_time", lambda: torch.cuda.Event.elapsed_time),
              ("torch.cuda.CUDAGraph", lambda: torch.cuda.CUDAGraph),
              ("torch.cuda.CUDAGraph.replay", lambda: torch.cuda.CUDAGraph.replay),
              ("torch.cuda.graph", lambda: torch.cuda.graph)]
    return g


def _snapshot():
    snap = {}
    for name, get in _guarded():
        try:
            obj = get()
        except Exception:
            obj = None
        # The code object itself too: code objects are immutable, so a new __code__ is a new object
        # even where a patched hashlib would make the digests agree.
        snap[name] = (obj, _code_of(obj), _code_hash(obj))
    return snap


def _integrity_violations():
    """The names of trusted functions that changed since the contract was imported."""
    changed = []
    for name, (obj, code, digest) in _TRUSTED.items():
        try:
            now = _TRUSTED_GETTERS[name]()
        except Exception:
            now = None
        if now is not obj or _code_of(now) is not code or _code_hash(now) != digest:
            changed.append(name)
    if time.perf_counter.__class__.__name__ != "builtin_function_or_method":
        changed.append("time.perf_counter (not the builtin)")
    return changed


class _Tf32:
    """Sets torch's TF32 switches for a block and restores them."""

    def __init__(self, torch, enabled):
        self.torch, self.enabled = torch, enabled

    def __enter__(self):
        b = self.torch.backends
        self.saved = (b.cuda.matmul.allow_tf32, b.cudnn.allow_tf32)
        b.cuda.matmul.allow_tf32 = self.enabled
        b.cudnn.allow_tf32 = self.enabled

    def __exit__(self, *exc):
        b = self.torch.backends
        b.cuda.matmul.allow_tf32, b.cudnn.allow_tf32 = self.saved
        return False


def _as_list(out):
    import torch
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)) and out and all(isinstance(o, torch.Tensor) for o in out):
        return list(out)
    return None


# --- entry point ---------------------------------------------------------------------------------
def _error_line(target, message, event=None):
    line = {"protocol": PROTOCOL, "ok": False, "error": message,
            "target": getattr(target, "name", None), "contract_sha256": contract_sha256()}
    if event:
        line = dict({"event": event}, **line)
    _log(message)
    _emit(line)


def _judge_seed_argument(text):
    return "late" if text == "late" else int(text)


def _parse_args(argv):
    import argparse
    p = argparse.ArgumentParser(description="hotkernel measurement contract (protocol %d)" % PROTOCOL)
    p.add_argument("--run", type=int, default=0, help="run index: inputs are drawn from seed + RUN")
    p.add_argument("--device", choices=("cuda", "cpu"), default=None,
                   help="override the target's device (default: the target's, else cuda when torch sees a GPU)")
    p.add_argument("--judge-seed", type=_judge_seed_argument, default=None,
                   help="seed of the judged replay's inputs (default: random, reported as judge_seed); 'late': "
                        "ask for it on stdin once the timed block is captured and timed, as a worker does")
    p.add_argument("--judge-dir", default=None,
                   help="write the judged replay's outputs to this directory for a judge outside this process")
    p.add_argument("--judge-file", default=None,
                   help="judge the outputs another process wrote (with --run and --judge-seed) instead of running fn")
    p.add_argument("--timer", choices=("events",), default=None,
                   help="time a plain block with CUDA events instead of a CUDA graph replay")
    p.add_argument("--bracket", action="store_true",
                   help="wait for {\"op\": \"go\"} on stdin before the bracketed replays (the judged replay on a "
                        "GPU, the timed ones on a CPU) and say when they are done (the core's clock, protocol 5)")
    p.add_argument("--worker", action="store_true", help="long-lived worker: requests on stdin, one line each")
    p.add_argument("--check-import", action="store_true",
                   help="import everything the target names and print its identity, without running it")
    return p.parse_args(argv)


def main(target, fn, argv=None):
    _protect_stdout()
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    if args.check_import:
        _check_import(target, fn)
        return
    try:
        bench = _Bench(target, fn, args.device)
    except TargetError as e:
        _error_line(target, str(e), "error" if args.worker else None)
        sys.exit(0)
    if args.worker:
        _worker(bench)
        return
    if args.judge_file is not None:
        if args.judge_seed is None or args.judge_seed == "late":
            _error_line(target, "--judge-file needs --judge-seed: the seed the judged outputs were computed with")
            sys.exit(0)
        _emit(bench.judge(args.run, args.judge_seed, args.judge_file))
        return
    try:
        _emit_checked(bench, args.run, args.judge_seed, args.judge_dir, args.timer, bracket=args.bracket)
    except TargetError as e:
        _error_line(target, str(e))
    sys.stdout.flush()
    sys.stderr.flush()


def _check_import(target, fn):
    try:
        definition = target.resolved()
        base = target._defining_globals.get("__file__")
        if target.reference is not None:
            load_function(target.reference, base)
        if target.derive is not None:
            load_function(target.derive, base)
        if not callable(fn):
            raise TargetError("fn is not callable")
    except TargetError as e:
        _log(str(e))
        sys.exit(1)
    _emit({"event": "import-ok", "protocol": PROTOCOL, "target": definition["name"],
           "contract_sha256": contract_sha256()})


def _worker(bench):
    global _OUTLIVES_RUN
    _OUTLIVES_RUN = True
    # Build the inputs and run fn once (compiles Triton kernels, loads libraries) before saying ready;
    # a failure here is reported by the first run.
    steps = _StepClock()
    steps._last = _IMPORTED_AT
    steps.lap("script")  # the script's own imports (Triton, its kernels' modules) and the target
    try:
        bench.fill(0)
        steps.lap("fill")
        with bench.torch.no_grad():
            bench.call(bench.sets[0])
        if bench.device == "cuda":
            bench.torch.cuda.synchronize()
        steps.lap("first_call")
    except TargetError as e:
        _error_line(bench.target, str(e), "error")
        return
    except Exception:
        traceback.print_exc()
    ready = {"event": "ready", "pid": os.getpid(), "steps_ms": steps.ms}
    ready.update(bench.identity())
    ready["sources"] = _user_sources()
    _emit(ready)
    while True:
        raw = sys.stdin.readline()
        if not raw:
            return
        raw = raw.strip()
        if not raw:
            continue
        try:
            request = json.loads(raw)
            op = request.get("op")
        except (ValueError, AttributeError):
            _error_line(bench.target, "bad request %r: send {\"op\": \"run\", \"run\": I} or {\"op\": \"quit\"}" % raw[:200])
            continue
        if op == "quit":
            return
        judge_seed = request.get("judge_seed") if isinstance(request, dict) else None
        if judge_seed is not None and judge_seed != "late" and (not isinstance(judge_seed, int) or judge_seed < 0):
            op = None
        judge_dir = request.get("judge_dir") if op == "run" else None
        if judge_dir is not None and not isinstance(judge_dir, str):
            op = None
        timer = request.get("timer") if op == "run" else None
        if timer not in (None, "events"):
            op = None
        bracket = request.get("bracket", False) if op == "run" else False
        if not isinstance(bracket, bool):
            op = None
        if op == "judge" and (judge_seed is None or not isinstance(request.get("judge_file"), str)):
            op = None
        if op not in ("run", "judge") or not isinstance(request.get("run"), int) or request["run"] < 0:
            _error_line(bench.target, "bad request %r: send {\"op\": \"run\", \"run\": I}, {\"op\": \"judge\", "
                        "\"run\": I, \"judge_seed\": S, \"judge_file\": PATH} or {\"op\": \"quit\"}" % raw[:200])
            continue
        try:
            if op == "judge":
                answer = bench.judge(request["run"], judge_seed, request["judge_file"])
                answer["sources"] = _ORIGINAL_SOURCES()
                _ORIGINAL_EMIT(answer)
            else:
                _emit_checked(bench, request["run"], judge_seed, judge_dir, timer, worker=True, bracket=bracket)
        except TargetError as e:
            _error_line(bench.target, str(e))


def _emit_checked(bench, run, judge_seed, judge_dir=None, timer=None, worker=False, bracket=False):
    """Runs through the functions the contract started with and marks the line invalid when any
    trusted function was replaced meanwhile. A worker's line also names its source files."""
    line = _ORIGINAL_RUN(bench, run, judge_seed, judge_dir, timer, bracket)
    if worker:
        line["sources"] = _ORIGINAL_SOURCES()
    changed = _ORIGINAL_VIOLATIONS()
    if changed:
        why = ("patched during the run: %s (the timers and the contract must stay the ones the contract "
               "started with)" % ", ".join(changed))
        line["ok"] = False
        line["invalid"] = why if not line.get("invalid") else line["invalid"] + "; " + why
    _ORIGINAL_EMIT(line)


# Taken at import, before any candidate code runs (the scripts import this module first). torch
# is imported here for the same reason, except for --check-import, which must stay light.
if "--check-import" not in sys.argv:
    try:
        import torch  # noqa: F401
    except Exception:
        pass
_TRUSTED_GETTERS = dict(_guarded())
_TRUSTED = _snapshot()
_ORIGINAL_RUN = _Bench.run
_IMPORTED_AT = time.perf_counter()
_ORIGINAL_VIOLATIONS = _integrity_violations
_ORIGINAL_EMIT = _emit
_ORIGINAL_SOURCES = _user_sources
