// SPDX-License-Identifier: Apache-2.0
#include "remote/remotetorchtrace.h"

#include "base/confinedwrite.h"
#include "base/job.h"
#include "base/jobguard.h"
#include "base/usererror.h"
#include "remote/remotehost.h"
#include "remote/remotetoolbox.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>

namespace hotkernel {

namespace {

QByteArray wrapperSource()
{
    QFile f(QStringLiteral(
        ":/hotkernel/scripts/torch_trace.py")); // not a named file: a resource compiled into the binary
    if (!f.open(QIODevice::ReadOnly))
        throw UserError(
            QStringLiteral("This hotkernel build lacks its torch_trace.py resource; rebuild hotkernel."));
    return f.readAll();
}

// Where torch writes a trace there: the private folder, under the local destination's name; empty
// when the trace is not asked for. A plain function: a lambda capturing the coroutine's locals by
// reference read freed memory here under g++ 12 (docs/hacking.md, "Compiler rules").
QString remoteFileFor(const QString &dir, const QString &destination)
{
    if (destination.isEmpty())
        return {};
    return dir + QLatin1Char('/') + QFileInfo(destination).fileName();
}

// A trace that came back goes to its local destination (confined to the working directory); one
// torch did not write is noted as the local run notes it.
void bringBack(const QString &root, const QString &destination, const std::optional<QByteArray> &bytes,
               const char *key, Json &document)
{
    if (destination.isEmpty() || !document.contains(key))
        return;
    if (!bytes) {
        document.erase(key);
        document[std::string(key) + "_error"] = "torch wrote no file";
        return;
    }
    ConfinedWrite::writeFile(root, QDir(root).relativeFilePath(destination), *bytes);
    document[key] = toStd(destination);
}

} // namespace

QCoro::Task<Json> RemoteTorchTrace::run(TorchTraceRequest request, RemoteHost *host, Job *job)
{
    const JobGuard guard(job);
    const QPointer<RemoteHost> alive(host);
    const QString purpose = QStringLiteral("profile");
    const QString dir = co_await host->makePrivateDir(job, purpose);
    if (guard.stopped() || !alive || dir.isEmpty())
        co_return Json::object();
    RemoteHost::FolderRemoval folder{alive, dir};
    const QString wrapper = dir + QStringLiteral("/torch_trace.py");
    const ProcessResult copied =
        co_await host->run(QStringLiteral("cat > ") + shellQuote(wrapper), wrapperSource(), guard.job());
    if (guard.stopped() || !alive)
        co_return Json::object();
    if (!copied.succeeded())
        throw UserError(QStringLiteral("host %1: cannot write %2 (%3); free some space there.")
                            .arg(alive->display(), wrapper, copied.stderrTail(4)));

    ProcessSpec spec;
    spec.program = request.python;
    spec.arguments << wrapper << QStringLiteral("--top") << QString::number(request.top);
    // torch writes each trace into the private folder there; it comes back to its local place.
    const QString chromeFile = remoteFileFor(dir, request.chromeTrace);
    const QString etFile = remoteFileFor(dir, request.executionTrace);
    if (!chromeFile.isEmpty())
        spec.arguments << QStringLiteral("--chrome-trace") << chromeFile;
    if (!etFile.isEmpty())
        spec.arguments << QStringLiteral("--execution-trace") << etFile;
    spec.arguments << request.script << request.arguments;
    spec.workingDirectory = request.workingDirectory;
    spec.timeout = std::chrono::seconds(request.timeoutSeconds);
    spec.extraEnvironment.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    guard.job()->setProgress(0, std::nullopt,
                             QStringLiteral("running %1 under torch.profiler on %2")
                                 .arg(QFileInfo(request.script).fileName(), alive->display()));
    const ProcessResult r = co_await RemoteToolbox::run(host, spec, guard.job());
    if (guard.stopped() || !alive)
        co_return Json::object();
    Json document = TorchTraceRunner::interpret(r, request);

    // Both read unconditionally (an absent file reads as nullopt) (docs/hacking.md).
    const std::optional<QByteArray> chrome = co_await RemoteToolbox::read(host, chromeFile, guard.job());
    if (guard.stopped() || !alive)
        co_return Json::object();
    const std::optional<QByteArray> et = co_await RemoteToolbox::read(host, etFile, guard.job());
    if (guard.stopped() || !alive)
        co_return Json::object();
    bringBack(request.workingDirectory, request.chromeTrace, chrome, "chrome_trace", document);
    bringBack(request.workingDirectory, request.executionTrace, et, "execution_trace", document);
    document["host"] = toStd(alive->display());
    co_await host->remove(dir, guard.job());
    folder.path.clear();
    co_return document;
}

} // namespace hotkernel
