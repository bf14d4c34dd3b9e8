// SPDX-License-Identifier: Apache-2.0
// RemoteHost as the Host the runners take (docs/hosts.md): each step connects when the connection
// is not up yet (the first call, or after it was lost or the allocation ended), then goes through
// RemoteToolbox as the remote runners did. The rest of RemoteHost is remotehost.cpp.
#include "remote/remotehost.h"

#include "base/usererror.h"
#include "remote/remotetoolbox.h"

#include <QPointer>

namespace hotkernel {

QString RemoteHost::pathThere(const QString &path) const
{
    return m_shell ? m_shell->remotePath(path) : path;
}

QString RemoteHost::commandLine(const ProcessSpec &spec) const
{
    QStringList shown{spec.program};
    for (const QString &a : spec.arguments)
        shown << pathThere(a);
    return QStringLiteral("on %1: %2").arg(display(), shown.join(QLatin1Char(' ')));
}

QStringList RemoteHost::tritonCacheRoots() const
{
    throw UserError(
        QStringLiteral("disasm of the Triton cache on a remote host is not built (%1): give the "
                       "kernel's .cubin as the host has it (ls ~/.triton/cache/*/NAME.cubin there), "
                       "or profile it with ncu and set \"full\" and disasm the source_csv that "
                       "comes back.")
            .arg(display()));
}

QCoro::Task<bool> RemoteHost::prepareFiles(QStringList relativeFiles, Job *job)
{
    const QPointer<RemoteHost> alive(this);
    const std::shared_ptr<const RemoteShell> shell = co_await connect(job);
    if (!shell || !alive)
        co_return false;
    co_return co_await alive->sync(relativeFiles, job);
}

QCoro::Task<QString> RemoteHost::findTool(QString tool, QString, Job *job)
{
    // The variable names a search here; there the URL's tools= folders play its part.
    co_return co_await RemoteToolbox::locate(this, tool, job);
}

QString RemoteHost::lookForTool(const QString &, const QString &) const
{
    return {}; // not looked for there (docs/remote.md): "auto" means the tracer, built there
}

QCoro::Task<QString> RemoteHost::nativeHelper(QString fileName, Job *job)
{
    const QPointer<RemoteHost> alive(this);
    const std::shared_ptr<const RemoteShell> shell = co_await connect(job);
    if (!shell || !alive)
        co_return QString();
    co_return co_await RemoteToolbox::nativeHelper(alive, fileName, job);
}

QCoro::Task<ProcessResult> RemoteHost::runTool(ProcessSpec spec, Job *job)
{
    co_return co_await RemoteToolbox::run(this, std::move(spec), job);
}

QCoro::Task<std::optional<QByteArray>> RemoteHost::readBack(QString path, Job *job)
{
    co_return co_await RemoteToolbox::read(this, path, job);
}

QCoro::Task<PythonInfo> RemoteHost::interpreter(Job *job)
{
    const QPointer<RemoteHost> alive(this);
    const std::shared_ptr<const RemoteShell> shell = co_await connect(job);
    if (!shell || !alive)
        co_return PythonInfo();
    co_return alive->python(); // probed when it connected
}

QCoro::Task<Json> RemoteHost::probeGpu(Job *job)
{
    const QPointer<RemoteHost> alive(this);
    const std::shared_ptr<const RemoteShell> shell = co_await connect(job);
    if (!shell || !alive)
        co_return Json();
    co_return co_await alive->gpuSnapshot(job);
}

} // namespace hotkernel
