# SPDX-License-Identifier: Apache-2.0
"""hotkernel's helper for the inspect tools on a remote host (issue 24); standard library only.

hotkernel runs it there as `PYTHON -c SOURCE MODE ...` through the session's connection:

  locate TOOL [DIR ...]   prints `path=...` for NVIDIA's program TOOL (ncu, cuobjdump, nvdisasm)
                          and `looked=...` (the folders searched, ':'-separated), DIRs first.
  build CACHE [DIR ...]   reads {"files": {name: text}, "target": T, "output": FILE} (core/native's
                          sources) on stdin, builds target T with CMake in CACHE (once: a finished
                          build is reused) and prints `built=PATH` when FILE was made, `log=PATH`,
                          and `missing=cmake` (with `looked=`) without CMake; DIRs, then the
                          interpreter's bin folder, go before PATH.
"""
import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys
import sysconfig


def search_dirs(extra):
    """Where NVIDIA's programs live on a machine that has torch, in the order hotkernel looks here."""
    dirs = list(extra)
    purelib = sysconfig.get_paths().get("purelib", "")
    if purelib:
        dirs.append(os.path.join(purelib, "triton", "backends", "nvidia", "bin"))
        dirs.extend(sorted(glob.glob(os.path.join(purelib, "nvidia", "*", "bin"))))
    dirs.extend(sorted(glob.glob("/opt/nvidia/nsight-compute/*"), reverse=True))
    dirs.extend(p for p in os.environ.get("PATH", "").split(os.pathsep) if p)
    if os.environ.get("CUDA_HOME"):
        dirs.append(os.path.join(os.environ["CUDA_HOME"], "bin"))
    dirs.append("/usr/local/cuda/bin")
    seen = []
    for d in dirs:
        if d not in seen and os.path.isdir(d):
            seen.append(d)
    return seen


def locate(tool, extra):
    dirs = search_dirs(extra)
    for d in dirs:
        candidate = os.path.join(d, tool)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            print("path=" + candidate)
            break
    print("looked=" + ":".join(dirs))


def build(cache, extra):
    request = json.load(sys.stdin)
    target, output = request["target"], request["output"]
    os.makedirs(cache, exist_ok=True)
    env = dict(os.environ)
    # The interpreter's own bin folder as if its environment were activated: a CMake installed
    # with pip into the torch venv is found although a non-interactive ssh command's PATH lacks it.
    scripts = sysconfig.get_path("scripts") or os.path.dirname(sys.executable)
    dirs = list(extra) + [scripts] + env.get("PATH", "").split(os.pathsep) + ["/usr/local/cuda/bin"]
    env["PATH"] = os.pathsep.join(d for d in dirs if d)
    if not shutil.which("cmake", path=env["PATH"]):
        print("missing=cmake")
        print("looked=" + env["PATH"])
        return
    # One build at a time per cache folder: two sessions starting together wait for each other.
    with open(os.path.join(cache, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        build_dir = os.path.join(cache, "build")
        log_path = os.path.join(cache, "build.log")
        done = os.path.join(cache, ".done")
        if not os.path.exists(done):
            # A build that made nothing last time (no toolkit then) starts again from scratch.
            shutil.rmtree(build_dir, ignore_errors=True)
            source = os.path.join(cache, "src")
            os.makedirs(source, exist_ok=True)
            for name, text in request["files"].items():
                with open(os.path.join(source, os.path.basename(name)), "w") as f:
                    f.write(text)
            with open(log_path, "w") as log:
                steps = [["cmake", "-S", source, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"]]
                steps.append(["cmake", "--build", build_dir, "--target", target])
                for step in steps:
                    log.write("$ " + " ".join(step) + "\n")
                    log.flush()
                    if subprocess.run(step, stdout=log, stderr=subprocess.STDOUT, env=env).returncode:
                        break
        made = os.path.join(build_dir, output)
        if os.path.isfile(made):
            open(done, "w").close()
            print("built=" + made)
        print("log=" + log_path)


def main():
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "locate":
        locate(rest[0], rest[1:])
    elif mode == "build":
        build(os.path.expanduser(rest[0]), rest[1:])
    else:
        sys.exit("unknown mode " + mode)


main()
