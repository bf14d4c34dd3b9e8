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
    // The tool's path: $<variable> when set (e.g. HOTKERNEL_CUOBJDUMP), then PATH, $CUDA_HOME/bin,
    // /usr/local/cuda/bin. Empty when not found; *tried lists where it looked.
    static QString find(const QString &tool, const QString &variable = {}, QStringList *tried = nullptr);
    // As find(), but throws UserError saying where it looked and how to point hotkernel at it.
    static QString require(const QString &tool, const QString &variable = {});
    // libhotkernel_tracer.so: $HOTKERNEL_TRACER, else beside the running binary (and its ../lib).
    // Empty when not built (no CUDA Toolkit when hotkernel was built).
    static QString tracerLibrary(QStringList *tried = nullptr);
};

} // namespace hotkernel
