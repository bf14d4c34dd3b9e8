// SPDX-License-Identifier: Apache-2.0
#include "inspect/torchtracerunner.h"

#include "base/confinedwrite.h"
#include "base/jobguard.h"
#include "base/usererror.h"
#include "process/processrunner.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include <memory>
#include <optional>

namespace hotkernel {

std::optional<Json> TorchTraceRunner::lastJsonObject(const QByteArray &output)
{
    const QList<QByteArray> lines = output.split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QByteArray line = it->trimmed();
        if (!line.startsWith('{'))
            continue;
        if (auto parsed = parseJson(line); parsed && parsed->is_object())
            return parsed;
    }
    return std::nullopt;
}

Json TorchTraceRunner::interpret(const ProcessResult &r, const TorchTraceRequest &request)
{
    if (r.status == ProcessResult::Status::FailedToStart)
        throw UserError(
            QStringLiteral("Could not start %1: %2. Set HOTKERNEL_PYTHON to an interpreter with torch.")
                .arg(request.python, r.errorString));
    if (r.status == ProcessResult::Status::TimedOut)
        throw UserError(
            QStringLiteral("%1 ran past %2 s under the profiler and was stopped; shorten the script (fewer "
                           "iterations) or raise timeout_s.")
                .arg(request.script)
                .arg(request.timeoutSeconds));
    std::optional<Json> document = lastJsonObject(r.standardOutput);
    if (!document)
        throw UserError(
            QStringLiteral("The profiler wrapper printed no result (exit %1). Last lines of stderr:\n%2")
                .arg(r.exitCode)
                .arg(r.stderrTail(12)));
    if (document->contains("error")) {
        QString message =
            QStringLiteral("torch_trace: %1").arg(toQt((*document)["error"].get<std::string>()));
        if (document->contains("traceback"))
            message += QStringLiteral(":\n") + toQt((*document)["traceback"].get<std::string>()).trimmed();
        else
            message += QStringLiteral(". Last lines of stderr:\n") + r.stderrTail(8);
        throw UserError(
            message +
            QStringLiteral("\nFix the script so it runs on its own (`python %1`), then trace it again.")
                .arg(request.script));
    }
    return *document;
}

QCoro::Task<Json> TorchTraceRunner::run(TorchTraceRequest request, Job *job)
{
    // The wrapper ships inside the binary; the interpreter needs it as a file. Both temporary
    // folders are owned by this coroutine's frame, so they go on every exit: return, throw,
    // cancellation, or the frame destroyed with its job.
    auto dir = std::make_unique<QTemporaryDir>();
    if (!dir->isValid())
        throw UserError(QStringLiteral("Cannot create a temporary directory: %1.").arg(dir->errorString()));
    const QString wrapper = dir->filePath(QStringLiteral("torch_trace.py"));
    // not a named file: a resource compiled into the binary
    if (!QFile::copy(QStringLiteral(":/hotkernel/scripts/torch_trace.py"), wrapper))
        throw UserError(
            QStringLiteral("This hotkernel build lacks its torch_trace.py resource; rebuild hotkernel."));

    ProcessSpec spec;
    spec.program = request.python;
    spec.arguments << wrapper << QStringLiteral("--top") << QString::number(request.top);
    // torch writes the chrome and execution traces itself (following symlinks), so it writes into a
    // private folder beside the destination, and each finished file is moved into place.
    std::optional<ConfinedDir> traceDir;
    std::unique_ptr<ConfinedTempDir> traceScratch;
    const auto scratchPath = [&](const QString &destination, const QString &what) {
        const QString name = QFileInfo(destination).fileName();
        ConfinedWrite::requireName(name, what);
        if (!traceScratch) {
            traceDir.emplace(ConfinedDir::open(request.workingDirectory, QFileInfo(destination).path()));
            traceScratch = std::make_unique<ConfinedTempDir>(*traceDir, QStringLiteral("torch-trace"));
        }
        return traceScratch->filePath(name);
    };
    if (!request.chromeTrace.isEmpty())
        spec.arguments << QStringLiteral("--chrome-trace")
                       << scratchPath(request.chromeTrace, QStringLiteral("the chrome trace's name"));
    if (!request.executionTrace.isEmpty())
        spec.arguments << QStringLiteral("--execution-trace")
                       << scratchPath(request.executionTrace, QStringLiteral("the execution trace's name"));
    spec.arguments << request.script << request.arguments;
    spec.workingDirectory = request.workingDirectory;
    spec.timeout = std::chrono::seconds(request.timeoutSeconds);
    spec.extraEnvironment.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    const JobGuard guard(job);
    if (job)
        job->setProgress(0, std::nullopt,
                         QStringLiteral("running %1 under torch.profiler").arg(request.script));
    const ProcessResult r = co_await ProcessRunner::run(spec, job);
    if (guard.stopped())
        co_return Json::object();
    Json document = interpret(r, request);
    // Both traces land in the same destination folder (both requests name profiles/).
    const auto moveIntoPlace = [&](const QString &destination, const char *key) {
        if (!traceScratch || destination.isEmpty() || !document.contains(key))
            return;
        const QString name = QFileInfo(destination).fileName();
        if (traceScratch->dir().hasFile(name)) {
            traceDir->moveFrom(traceScratch->dir(), name, name);
            document[key] = toStd(traceDir->filePath(name));
        } else {
            document.erase(key);
            document[std::string(key) + "_error"] = "torch wrote no file";
        }
    };
    moveIntoPlace(request.chromeTrace, "chrome_trace");
    moveIntoPlace(request.executionTrace, "execution_trace");
    co_return document;
}

} // namespace hotkernel
