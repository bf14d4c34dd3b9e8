// SPDX-License-Identifier: Apache-2.0
#include "remote/remotetoolbox.h"

#include "base/job.h"
#include "base/json.h"
#include "base/usererror.h"
#include "process/nativehelpers.h"
#include "process/processrunner.h"
#include "remote/remotehost.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QPointer>

namespace hotkernel {

namespace {

QByteArray resource(const QString &path)
{
    QFile f(path); // not a named file: a resource compiled into the binary
    if (!f.open(QIODevice::ReadOnly))
        throw UserError(
            QStringLiteral("this hotkernel was built without %1; rebuild it from a full checkout.")
                .arg(path));
    return f.readAll();
}

// The remote helper script, run as `PYTHON -c SOURCE MODE ARGS...` (nothing to copy first).
QString toolsCommand(const RemoteHost &host, const QStringList &arguments)
{
    QStringList words{shellQuote(host.python().path), QStringLiteral("-c"),
                      shellQuote(QString::fromUtf8(
                          resource(QStringLiteral(":/hotkernel/remote/hotkernel-remote-tools.py"))))};
    for (const QString &a : arguments)
        words << shellQuote(a);
    for (const QString &dir : host.url().toolDirs)
        words << shellQuote(dir);
    return words.join(QLatin1Char(' '));
}

const QStringList kNativeSources{QStringLiteral("CMakeLists.txt"), QStringLiteral("tracer.cpp"),
                                 QStringLiteral("calibrate.cu"), QStringLiteral("supervise.cpp")};

// The CMake target that makes a helper file.
QString targetOf(const QString &fileName)
{
    if (fileName == NativeHelpers::tracerFileName())
        return QStringLiteral("hotkernel-tracer");
    if (fileName == NativeHelpers::calibrateFileName())
        return QStringLiteral("hotkernel-calibrate");
    throw UserError(QStringLiteral("hotkernel has no native helper named %1.").arg(fileName));
}

QString toolHint(const QString &tool)
{
    if (tool == QLatin1String("ncu"))
        return QStringLiteral("install Nsight Compute there (it comes with the CUDA Toolkit)");
    return QStringLiteral("install the CUDA Toolkit there, or pip install nvidia-cuda-%1 into the host's "
                          "interpreter")
        .arg(tool == QLatin1String("nvdisasm") ? QStringLiteral("nvdisasm") : QStringLiteral("cuobjdump"));
}

// ~/.cache/hotkernel/native-<16 hex digits of the sources' hash>.
QString cacheFor(const QByteArray &sources)
{
    const QByteArray hash = QCryptographicHash::hash(sources, QCryptographicHash::Sha256);
    return QStringLiteral("~/.cache/hotkernel/native-") + QString::fromLatin1(hash.toHex().left(16));
}

// {"files": {name: text}}: core/native's sources as this binary carries them.
Json nativeSources()
{
    Json files = Json::object();
    for (const QString &name : kNativeSources)
        files[toStd(name)] = resource(QStringLiteral(":/hotkernel/native/") + name).toStdString();
    return Json{{"files", files}};
}

// The helper script's `looked=` folders, as a message lists them.
QString foldersLooked(const QByteArray &output)
{
    return RemoteHost::outputField(output, "looked").replace(QLatin1Char(':'), QStringLiteral(", "));
}

} // namespace

QByteArray RemoteToolbox::buildRequest()
{
    return QByteArray::fromStdString(nativeSources().dump());
}

QString RemoteToolbox::buildCache()
{
    return cacheFor(buildRequest());
}

QCoro::Task<QString> RemoteToolbox::locate(RemoteHost *host, QString tool, Job *job)
{
    const QPointer<RemoteHost> alive(host);
    if (const QString known = host->toolCache().value(tool); !known.isEmpty())
        co_return known;
    const QString command = toolsCommand(*host, QStringList{QStringLiteral("locate"), tool});
    const ProcessResult r = co_await host->run(command, {}, job);
    if (!alive || r.status == ProcessResult::Status::Cancelled)
        co_return QString();
    if (!r.succeeded())
        throw UserError(QStringLiteral("host %1: looking for %2 there failed (%3).")
                            .arg(alive->display(), tool, r.stderrTail(4)));
    const QString path = RemoteHost::outputField(r.standardOutput, "path");
    if (path.isEmpty())
        throw UserError(
            QStringLiteral("host %1 has no %2 where hotkernel looked (%3): %4, or name its folder in the "
                           "host URL (?tools=/path/to/bin).")
                .arg(alive->display(), tool, foldersLooked(r.standardOutput), toolHint(tool)));
    alive->toolCache().insert(tool, path);
    co_return path;
}

QCoro::Task<QString> RemoteToolbox::nativeHelper(RemoteHost *host, QString fileName, Job *job)
{
    const QPointer<RemoteHost> alive(host);
    const QString key = QStringLiteral("native:") + fileName;
    if (const QString known = host->toolCache().value(key); !known.isEmpty())
        co_return known;
    const QString target = targetOf(fileName);
    Json request = nativeSources();
    const QString cache = cacheFor(QByteArray::fromStdString(request.dump())) + QLatin1Char('/') + target;
    request["target"] = toStd(target);
    request["output"] = toStd(fileName);
    if (job)
        job->setProgress(
            0, std::nullopt,
            QStringLiteral("preparing hotkernel's %1 on %2 (built there with its CMake and CUDA "
                           "Toolkit once per host and hotkernel version, about a minute; reused after)")
                .arg(fileName, host->display()));
    const QString command = toolsCommand(*host, QStringList{QStringLiteral("build"), cache});
    const QByteArray input = QByteArray::fromStdString(request.dump());
    const ProcessResult r = co_await host->run(command, input, job, std::chrono::minutes(15));
    if (!alive || r.status == ProcessResult::Status::Cancelled)
        co_return QString();
    if (RemoteHost::outputField(r.standardOutput, "missing") == QLatin1String("cmake"))
        throw UserError(
            QStringLiteral("host %1 has no cmake where hotkernel looked (%3), and CMake builds hotkernel's "
                           "%2 there from source: install CMake 3.25 or newer there (pip install cmake into "
                           "the host's interpreter will do) with the CUDA Toolkit and CUPTI, or name their "
                           "folders in the host URL (?tools=/path/to/bin).")
                .arg(alive->display(), fileName, foldersLooked(r.standardOutput)));
    const QString built = RemoteHost::outputField(r.standardOutput, "built");
    if (built.isEmpty()) {
        const QString log = RemoteHost::outputField(r.standardOutput, "log");
        QString tail = r.stderrTail(6);
        if (!log.isEmpty()) {
            const ProcessResult t =
                co_await alive->run(QStringLiteral("tail -n 12 -- ") + shellQuote(log), {}, job);
            tail = QString::fromUtf8(t.standardOutput).trimmed();
        }
        throw UserError(
            QStringLiteral("host %1: building hotkernel's %2 there failed; it needs the CUDA Toolkit with "
                           "nvcc and CUPTI (name its bin folder with ?tools= if it is not on the PATH of "
                           "%3). The build log %4 ends:\n%5")
                .arg(alive->display(), fileName, alive->commandTransport(), log, tail));
    }
    alive->toolCache().insert(key, built);
    co_return built;
}

QCoro::Task<ProcessResult> RemoteToolbox::run(RemoteHost *host, ProcessSpec spec, Job *job)
{
    const std::shared_ptr<const RemoteShell> shell = host->shell();
    if (!shell)
        throw UserError(QStringLiteral("host %1 is not connected.").arg(host->display()));
    shell->wrap(spec, true);
    ProcessResult r = co_await ProcessRunner::run(spec, job);
    if (r.status == ProcessResult::Status::FailedToStart)
        throw UserError(QStringLiteral("host %1: cannot start %2 (%3).")
                            .arg(shell->display(), spec.program, r.errorString));
    if (r.status == ProcessResult::Status::Finished && shell->isTransportFailure(r.exitCode, r.standardError))
        throw UserError(shell->describeFailure(r.standardError));
    co_return r;
}

QCoro::Task<std::optional<QByteArray>> RemoteToolbox::read(RemoteHost *host, QString remoteFile, Job *job)
{
    const QString q = shellQuote(host->shell() ? host->shell()->remotePath(remoteFile) : remoteFile);
    const QString command = QStringLiteral("if [ -f %1 ]; then exec cat -- %1; else exit 3; fi").arg(q);
    const ProcessResult r = co_await host->run(command, {}, job, std::chrono::minutes(10));
    if (!r.succeeded())
        co_return std::nullopt;
    co_return std::optional<QByteArray>(r.standardOutput);
}

} // namespace hotkernel
