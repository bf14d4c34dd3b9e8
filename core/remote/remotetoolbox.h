// SPDX-License-Identifier: Apache-2.0
// The inspect tools' programs on a session's remote host (issue 24): NVIDIA's ncu, cuobjdump and
// nvdisasm found there as hotkernel finds them here, hotkernel's native helpers (the CUPTI tracer,
// calibrate) built there from the sources this binary carries, commands run there under the remote
// supervisor and their files read back. Lives on the Session's thread; never blocks it.
#pragma once

#include "process/processspec.h"

#include <QCoroTask>
#include <QString>

#include <optional>

namespace hotkernel {

class Job;
class RemoteHost;

class RemoteToolbox
{
public:
    // The path of ncu, cuobjdump or nvdisasm on the connected host: the URL's tools= folders, the
    // host interpreter's NVIDIA wheels and Triton's bin, /opt/nvidia/nsight-compute, PATH,
    // $CUDA_HOME/bin, /usr/local/cuda/bin. Remembered for the connection. Throws UserError naming
    // the host, where it looked and how to point hotkernel at it. Empty when the job was cancelled.
    static QCoro::Task<QString> locate(RemoteHost *host, QString tool, Job *job);

    // libhotkernel_tracer.so or hotkernel-calibrate on the connected host, built there with its
    // CMake and CUDA Toolkit from core/native the first time (about a minute), then reused from
    // ~/.cache/hotkernel/native-<hash of the sources> by every session of this user there. Throws
    // UserError when the host lacks CMake or the toolkit, with the build log's last lines. Empty
    // when the job was cancelled.
    static QCoro::Task<QString> nativeHelper(RemoteHost *host, QString fileName, Job *job);

    // Runs spec on the host under the remote supervisor: spec.program is the host's path, paths
    // under the session's directory (arguments, environment, working directory) are mapped to the
    // host's. A lost connection or an ended allocation throws UserError.
    static QCoro::Task<ProcessResult> run(RemoteHost *host, ProcessSpec spec, Job *job);

    // A file on the host (a path under the session's directory is mapped to the host's), read back
    // here; nullopt when it is not there (or the job was cancelled).
    static QCoro::Task<std::optional<QByteArray>> read(RemoteHost *host, QString remoteFile, Job *job);

    // The sources and targets nativeHelper() builds, as the JSON it sends (for tests).
    static QByteArray buildRequest();
    // The cache folder on the host for these sources: ~/.cache/hotkernel/native-<16 hex digits>.
    static QString buildCache();
};

} // namespace hotkernel
