// SPDX-License-Identifier: Apache-2.0
#include "inspect/localhost.h"

#include "base/boundedfile.h"
#include "base/usererror.h"
#include "inspect/cudatools.h"
#include "inspect/gpuprobe.h"
#include "inspect/tritoncache.h"
#include "process/nativehelpers.h"
#include "process/processrunner.h"

#include <QCoroFuture>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent>

namespace hotkernel {

namespace {

// A file a tool produced or a user named, read on the thread pool: nullopt when nothing is there.
struct ReadBack
{
    std::optional<QByteArray> bytes;
    QString error;
};

ReadBack readHere(const QString &path)
{
    ReadBack out;
    if (!QFileInfo::exists(path))
        return out;
    BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kReportLimit);
    if (file.ok())
        out.bytes = std::move(file.bytes);
    else
        out.error = path + QLatin1Char(' ') + file.error + QStringLiteral(": give a regular file.");
    return out;
}

// fetch()'s copy, on the thread pool: "" when copied, "absent" when there is nothing to copy, else
// why it failed. A file a step made: a link where it should be is refused.
QString copyHere(const QString &there, const QString &here)
{
    if (!QFileInfo::exists(there))
        return QStringLiteral("absent");
    const BoundedFile::Read file =
        BoundedFile::read(there, BoundedFile::kReportLimit, BoundedFile::Links::Refuse);
    if (!file.ok())
        return there + QLatin1Char(' ') + file.error;
    QFile out(here);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(file.bytes) != file.bytes.size())
        return QStringLiteral("cannot write %1 (%2); free some space there.").arg(here, out.errorString());
    out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return {};
}

} // namespace

QString LocalHost::name() const
{
    return QStringLiteral("this machine");
}

QString LocalHost::where() const
{
    return QStringLiteral("here");
}

Json LocalHost::record() const
{
    return Json();
}

QString LocalHost::pathThere(const QString &path) const
{
    return path;
}

QString LocalHost::commandLine(const ProcessSpec &spec) const
{
    return spec.commandLine();
}

QStringList LocalHost::tritonCacheRoots() const
{
    return TritonCache::defaultRoots();
}

QCoro::Task<bool> LocalHost::prepareFiles(QStringList, Job *)
{
    co_return true; // the files are here already
}

QCoro::Task<QString> LocalHost::findTool(QString tool, QString variable, Job *)
{
    co_return CudaTools::require(tool, variable);
}

QString LocalHost::lookForTool(const QString &tool, const QString &variable) const
{
    return CudaTools::find(tool, variable);
}

QCoro::Task<QString> LocalHost::nativeHelper(QString fileName, Job *)
{
    const QString helper = NativeHelpers::locate(fileName);
    if (helper.isEmpty())
        throw UserError(
            QStringLiteral(
                "%1 was not found (looked in: %2). It is built with hotkernel when the CUDA Toolkit "
                "is found; or build it alone with `cmake -S core/native -B build-native && cmake "
                "--build build-native` and set HOTKERNEL_NATIVE_DIR.")
                .arg(fileName, NativeHelpers::searchDirectories().join(QStringLiteral(", "))));
    co_return helper;
}

QCoro::Task<ProcessResult> LocalHost::runTool(ProcessSpec spec, Job *job)
{
    const ProcessResult result = co_await ProcessRunner::run(spec, job);
    if (result.status == ProcessResult::Status::FailedToStart)
        throw UserError(QStringLiteral("Could not start %1: %2.").arg(spec.program, result.errorString));
    co_return result;
}

QCoro::Task<std::optional<QByteArray>> LocalHost::readBack(QString path, Job *)
{
    // A named function, not a capturing lambda (docs/hacking.md, "Compiler rules").
    const ReadBack read = co_await QtConcurrent::run(readHere, path);
    if (!read.error.isEmpty())
        throw UserError(read.error);
    co_return read.bytes;
}

QCoro::Task<bool> LocalHost::fetch(QString there, QString here, Job *)
{
    if (QFileInfo(there).canonicalFilePath() == QFileInfo(here).canonicalFilePath() &&
        QFileInfo::exists(here))
        co_return true; // already in place
    const QString failure = co_await QtConcurrent::run(copyHere, there, here);
    if (failure == QLatin1String("absent"))
        co_return false;
    if (!failure.isEmpty())
        throw UserError(failure);
    co_return true;
}

QCoro::Task<PythonInfo> LocalHost::interpreter(Job *job)
{
    co_return co_await m_python.locate(job);
}

QCoro::Task<Json> LocalHost::probeGpu(Job *job)
{
    co_return co_await GpuProbe::snapshot(job);
}

} // namespace hotkernel
