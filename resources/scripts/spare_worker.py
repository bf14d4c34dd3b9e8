# SPDX-License-Identifier: Apache-2.0
"""A spare worker (issue 23, docs/processes.md "Spare workers"): an interpreter that has paid for
`import torch` and, where there is a GPU, for its CUDA context, Triton's import and a first CUDA
graph capture, and waits to become a target's
worker. The core sends one line, {"op": "become", "script": PATH, "cwd": DIR, "argv": [...]}, and
this process then runs PATH as __main__ with that argv, exactly as `python PATH ARGV...` would from
DIR: the contract's worker loop goes on reading the same stdin.

It imports nothing of the user's on purpose, so no user code can be stale in it. Should anything
outside the interpreter's own directories have been imported anyway (a sitecustomize, a .pth file),
the ready line names each such file with the sha256 of its bytes ("imported"), null when the file
changed after this process started (it cannot vouch for what it loaded); the core hands a spare over
only while every named file still has that hash.

Its one line: {"event": "spare-ready", "pid": N, "cuda": bool, "torch": VERSION, "imported": {...}}
once warm, on stdout, before anything of the target's runs (whose contract then owns stdout)."""
import hashlib
import json
import os
import runpy
import stat
import sys
import sysconfig
import time



def _coarse_now_ns():
    """The coarse real-time clock Linux file systems stamp mtimes with (5: CLOCK_REALTIME_COARSE,
    which Python names only on some builds), as the contract reads it."""
    try:
        return time.clock_gettime_ns(getattr(time, "CLOCK_REALTIME_COARSE", 5))
    except (AttributeError, OSError):
        return time.time_ns()


# Before any import of ours: a file modified at or after this moment may differ from what was loaded.
_STARTED_NS = _coarse_now_ns()


def _interpreter_dirs():
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(os.path.realpath(path))
    for path in sys.path:
        if "site-packages" in path or "dist-packages" in path:
            dirs.add(os.path.realpath(path))
    dirs.add(os.path.realpath(sys.prefix))
    dirs.add(os.path.realpath(sys.base_prefix))
    return sorted(dirs)


def _foreign_modules():
    """{path: sha256} of imported module files outside the interpreter's directories."""
    dirs = _interpreter_dirs()
    found = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            continue
        # Module objects made in code carry a bare name (torch 2.11's torch.classes says
        # "_classes.py"): no file was loaded, so there is nothing to go stale. A real import through
        # a relative sys.path entry resolves from this directory, where it was made.
        if not os.path.isabs(path) and not os.path.isfile(path):
            continue
        real = os.path.realpath(path)
        if real == os.path.realpath(__file__) or any(real == d or real.startswith(d + os.sep) for d in dirs):
            continue
        found[real] = _sha256(real)
    return found


_SOURCE_LIMIT = 16 * 1024 * 1024  # as the contract's


def _sha256(path):
    try:
        if os.stat(path).st_mtime_ns >= _STARTED_NS:
            return None
        # Not waited on, not unbounded (issue 39): a FIFO, a device or a huge file hashes to None.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            data = f.read(_SOURCE_LIMIT + 1)
        return hashlib.sha256(data).hexdigest() if len(data) <= _SOURCE_LIMIT else None
    except OSError:
        return None


def _say(obj):
    os.write(1, (json.dumps(obj) + "\n").encode("utf-8"))


# Made a Triton kernel by _prewarm, which binds `tl` in this module first: one load and one store.
def _triton_touch(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr) + 1)  # noqa: F821


def _prewarm(torch):
    """Pays, while this spare waits, what a GPU target's worker would pay on its first run:
    importing Triton (from the interpreter's own packages, so nothing of the user's can go stale),
    Triton's first launch (its backend's imports, its driver helpers, the JIT's cache; on the H100
    a target's first call of a kernel Triton had cached took 0.46-0.53 s without this,
    docs/measurements/session-speed-2026-12-06-1415.txt) and the first CUDA graph capture of the
    process. Best effort: a failure only leaves it to the target."""
    try:
        import triton
        import triton.language
        globals()["tl"] = triton.language
        x = torch.zeros(1, device="cuda", dtype=torch.float32)
        triton.jit(_triton_touch)[(1,)](x)
        torch.cuda.synchronize()
        del x
    except Exception:
        pass
    try:
        x = torch.zeros(1, device="cuda")
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            x.add_(1)
        graph.replay()
        torch.cuda.synchronize()
        del graph, x
        torch.cuda.empty_cache()  # an idle spare holds no more GPU memory than its context needs
    except Exception:
        pass


def main():
    import torch
    cuda = bool(torch.cuda.is_available())
    if cuda:
        torch.cuda.init()
        torch.empty(1, device="cuda")  # the context, and the caching allocator's first segment
        _prewarm(torch)
    _say({"event": "spare-ready", "pid": os.getpid(), "cuda": cuda, "torch": torch.__version__,
          "imported": _foreign_modules()})
    raw = sys.stdin.readline()
    if not raw:
        return 0
    request = json.loads(raw)
    if request.get("op") != "become":
        _say({"event": "spare-refused", "error": "the first line must be {\"op\": \"become\", ...}"})
        return 1
    script = os.path.abspath(request["script"])
    os.chdir(request.get("cwd") or os.path.dirname(script))
    sys.argv = [script] + [str(a) for a in request.get("argv", [])]
    # `python SCRIPT` puts the script's directory first on sys.path; this process was started on
    # this file, so its own directory is replaced.
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
