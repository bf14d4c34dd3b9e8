// SPDX-License-Identifier: Apache-2.0
// Where a session's tools run (issue 40, docs/hosts.md): this machine (LocalHost) or a remote host
// over SSH or Slurm (RemoteHost). The runners take a Host & and never ask which one they have.
// Lives on the Session's thread; its coroutines never block it.
#pragma once

#include "base/json.h"
#include "process/processspec.h"
#include "process/pythonlocator.h"

#include <QByteArray>
#include <QCoroTask>
#include <QString>
#include <QStringList>

#include <optional>

namespace hotkernel {

class Job;

class Host
{
public:
    // For messages: "this machine", or the host's URL.
    virtual QString name() const = 0;
    // Where a message says something is: "here", or "on URL".
    virtual QString where() const = 0;
    // What a result records about where it ran: null for this machine, the host's description
    // (kind, url, hostname, workdir, ...) otherwise.
    virtual Json record() const = 0;
    // A path as the host has it: the same here; a path under the session's directory mapped to the
    // host's working directory there.
    virtual QString pathThere(const QString &path) const = 0;
    // A step as results and errors show it: its command line here; "on URL: ..." with the paths
    // as the host has them there.
    virtual QString commandLine(const ProcessSpec &spec) const = 0;
    // The Triton cache folders to search for the host's compiled kernels (here: $TRITON_CACHE_DIR,
    // ~/.triton/cache; none when neither exists). Throws UserError, with what to do instead, where
    // the host's cache cannot be searched from here.
    virtual QStringList tritonCacheRoots() const = 0;

    // Makes the host ready to run on these files (relative to the session's directory): nothing
    // here; connects and copies them there. False when the job was cancelled.
    virtual QCoro::Task<bool> prepareFiles(QStringList relativeFiles, Job *job) = 0;
    // The path of one of NVIDIA's tools (ncu, cuobjdump, nvdisasm) on the host; variable names the
    // environment variable that overrides the search here. Throws UserError saying where it looked
    // and how to point hotkernel at it. Empty when the job was cancelled.
    virtual QCoro::Task<QString> findTool(QString tool, QString variable, Job *job) = 0;
    // The path of one of NVIDIA's tools that is used only where it is found at once, without
    // connecting (nsys, for profile's "auto"); empty where it is not found or not looked for (a
    // remote host).
    virtual QString lookForTool(const QString &tool, const QString &variable) const = 0;
    // The path there of one of hotkernel's native helpers (NativeHelpers::calibrateFileName(),
    // tracerFileName()): the one built with hotkernel here; built there from the sources this binary
    // carries, once per host and version. Throws UserError saying where it looked or why the build
    // failed. Empty when the job was cancelled.
    virtual QCoro::Task<QString> nativeHelper(QString fileName, Job *job) = 0;
    // Runs one step (a program found by findTool, with its arguments; paths under the session's
    // directory are mapped as pathThere does) and returns what it did. A lost connection throws
    // UserError; a cancel gives ProcessResult::Status::Cancelled.
    virtual QCoro::Task<ProcessResult> runTool(ProcessSpec spec, Job *job) = 0;
    // A file there, read back here (at most BoundedFile::kReportLimit); nullopt when it is not
    // there (or the job was cancelled). Throws UserError when it is no regular file.
    virtual QCoro::Task<std::optional<QByteArray>> readBack(QString path, Job *job) = 0;
    // A file a step made there (a path as the host has it: pathThere) copied to a local path here
    // (0600); false when it is not there. Throws UserError when it cannot be written here.
    virtual QCoro::Task<bool> fetch(QString there, QString here, Job *job) = 0;
    // The interpreter a Python step runs in: the user's torch interpreter here (HOTKERNEL_PYTHON,
    // the session's --python, PATH), the host's one there (probed when it connected). Empty path
    // when the job was cancelled.
    virtual QCoro::Task<PythonInfo> interpreter(Job *job) = 0;
    // The host's card now, in GpuProbe::snapshot()'s form; null when the job was cancelled.
    // Throws UserError when the host cannot be reached.
    virtual QCoro::Task<Json> probeGpu(Job *job) = 0;

protected:
    // Owned by the Session (LocalHost a member, RemoteHost a child QObject); never deleted here.
    ~Host() = default;
};

} // namespace hotkernel
