// SPDX-License-Identifier: Apache-2.0
// Finds NVIDIA's command-line tools (cuobjdump, nvdisasm, ncu, nsys) and hotkernel's CUPTI tracer.
// Pure lookups on the file system; any thread.
#pragma once

#include <QString>
#include <QStringList>

namespace hotkernel {

class CudaTools
{
public:
    // The tool's path, looked for where PyTorch users have it: $<variable> when set (e.g.
    // HOTKERNEL_CUOBJDUMP), then the folders of HOTKERNEL_TOOL_DIRS (':'-separated), the user's
    // interpreter's packages (Triton's bundled triton/backends/nvidia/bin, NVIDIA's wheels
    // nvidia/*/bin), /opt/nvidia/nsight-compute/* and /opt/nvidia/nsight-systems/*/bin (newest
    // first), then PATH, $CUDA_HOME/bin, /usr/local/cuda/bin. Empty when not found; *tried lists
    // where it looked.
    static QString find(const QString &tool, const QString &variable = {}, QStringList *tried = nullptr);
    // The folders find() searches before PATH, in order, that exist (for gpu_info and tests).
    static QStringList searchDirectories();
    // The interpreters whose packages are searched: $HOTKERNEL_PYTHON, $VIRTUAL_ENV/bin/python,
    // $CONDA_PREFIX/bin/python, then python3 and python on PATH. Their site-packages are found from
    // the interpreter's path alone (PREFIX/lib/python3.*/site-packages), without running it.
    static QStringList interpreterSitePackages();
    // As find(), but throws UserError saying where it looked and how to point hotkernel at it.
    static QString require(const QString &tool, const QString &variable = {});
    // libhotkernel_tracer.so: $HOTKERNEL_TRACER, else in NativeHelpers::searchDirectories().
    // Empty when not built (no CUDA Toolkit when hotkernel was built).
    static QString tracerLibrary(QStringList *tried = nullptr);
};

} // namespace hotkernel
