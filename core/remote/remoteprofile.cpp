// SPDX-License-Identifier: Apache-2.0
#include "remote/remoteprofile.h"

#include "base/confinedwrite.h"
#include "base/job.h"
#include "base/jobguard.h"
#include "base/usererror.h"
#include "process/nativehelpers.h"
#include "remote/remotehost.h"
#include "remote/remotetoolbox.h"

#include <QDir>
#include <QFileInfo>
#include <QPointer>

namespace hotkernel {

namespace {

// Saves a file that came back into profiles/ as ProfileRunner saves its own: confined to the
// working directory, never through a symlink, replaced atomically.
QString saveHere(const ProfileRequest &request, const QString &suffix, const QByteArray &bytes)
{
    const QString path = request.reportBase + suffix;
    ConfinedWrite::writeFile(request.workingDirectory, QDir(request.workingDirectory).relativeFilePath(path),
                             bytes);
    return path;
}

// The report's base name (rmsnorm_baseline-<time>) inside the private folder on the host.
QString baseOnHost(const ProfileRequest &request, const RemoteHost::FolderRemoval &folder)
{
    return folder.path + QLatin1Char('/') + QFileInfo(request.reportBase).fileName();
}

QString onHost(const RemoteHost &host, const ProcessSpec &spec)
{
    return QStringLiteral("on %1: %2").arg(host.display(), spec.commandLine());
}

QCoro::Task<ProcessResult> nothingToRun()
{
    co_return ProcessResult();
}

// Every co_await runs unconditionally; a plain function picks the task (docs/hacking.md).
QCoro::Task<ProcessResult> runIfWanted(RemoteHost *host, const ProcessSpec &spec, bool wanted, Job *job)
{
    if (!wanted)
        return nothingToRun();
    return RemoteToolbox::run(host, spec, job);
}

// ncu (the host's path) profiles the request into the private folder there.
QCoro::Task<ProfileOutcome> runNcu(ProfileRequest request, QString ncu, RemoteHost *host,
                                   RemoteHost::FolderRemoval *folder, Job *job)
{
    const JobGuard guard(job);
    const QPointer<RemoteHost> alive(host);
    ProfileOutcome out;
    out.tool = QStringLiteral("ncu");
    const QString report = baseOnHost(request, *folder);

    ProcessSpec spec = ProfileRunner::processSpec(ncu, request);
    spec.arguments = ProfileRunner::ncuOptions(request);
    spec.arguments << QStringLiteral("-o") << report << QStringLiteral("-f") << request.command;
    out.commands << onHost(*alive, spec);
    guard.job()->setProgress(
        0, 3,
        QStringLiteral("profiling with ncu on %1 (each kernel is replayed; this is slow)")
            .arg(alive->display()));
    const ProcessResult r = co_await RemoteToolbox::run(host, spec, guard.job());
    if (guard.stopped() || !alive)
        co_return out;
    ProfileRunner::checkRun(r, QStringLiteral("ncu on ") + alive->display(), request.timeoutSeconds);
    out.exitCode = r.exitCode;
    out.stderrTail = r.stderrTail(12);
    const std::optional<QByteArray> bytes =
        co_await RemoteToolbox::read(host, report + QStringLiteral(".ncu-rep"), guard.job());
    if (guard.stopped() || !alive)
        co_return out;
    if (!bytes)
        throw ProfileRunner::noReportError(request, r, out.stderrTail);
    out.report = saveHere(request, QStringLiteral(".ncu-rep"), *bytes);

    // The pages are exported there, by the ncu that wrote the report: this machine needs no ncu.
    guard.job()->setProgress(1, 3, QStringLiteral("exporting the details page on %1").arg(alive->display()));
    ProcessSpec details = ProfileRunner::processSpec(ncu, request);
    details.timeout = std::chrono::minutes(5);
    details.arguments = ProfileRunner::ncuExportArguments(report + QStringLiteral(".ncu-rep"), false);
    out.commands << onHost(*alive, details);
    const ProcessResult e = co_await RemoteToolbox::run(host, details, guard.job());
    if (guard.stopped() || !alive)
        co_return out;
    if (!e.succeeded())
        throw UserError(QStringLiteral("`%1` failed: %2").arg(out.commands.back(), e.stderrTail(6)));
    out.summaryCsv = saveHere(request, QStringLiteral(".details.csv"), e.standardOutput);
    out.table = co_await ProfileRunner::parseNcuDetails(e.standardOutput, out.summaryCsv);

    ProcessSpec source = ProfileRunner::processSpec(ncu, request);
    source.timeout = std::chrono::minutes(5);
    source.arguments = ProfileRunner::ncuExportArguments(report + QStringLiteral(".ncu-rep"), true);
    const bool wanted = ProfileRunner::wantsSourcePage(request);
    if (wanted) {
        guard.job()->setProgress(2, 3,
                                 QStringLiteral("exporting the source page on %1").arg(alive->display()));
        out.commands << onHost(*alive, source);
    }
    const ProcessResult src = co_await runIfWanted(host, source, wanted, guard.job());
    if (guard.stopped() || !alive)
        co_return out;
    if (wanted) {
        if (!src.succeeded() || !src.standardOutput.contains("\"Kernel Name\""))
            out.sourceNote =
                QStringLiteral("`%1` gave no source page: %2").arg(out.commands.back(), src.stderrTail(4));
        else
            out.sourceCsv = saveHere(request, QStringLiteral(".source-sass.csv"), src.standardOutput);
    }
    co_await host->remove(folder->path, guard.job());
    folder->path.clear();
    co_return out;
}

// The command runs under the tracer (the host's build), which writes into the private folder there.
QCoro::Task<ProfileOutcome> runTrace(ProfileRequest request, QString tracer, RemoteHost *host,
                                     RemoteHost::FolderRemoval *folder, Job *job)
{
    const JobGuard guard(job);
    const QPointer<RemoteHost> alive(host);
    ProfileOutcome out;
    out.tool = QStringLiteral("trace");
    const QString trace = baseOnHost(request, *folder) + QStringLiteral(".trace.jsonl");

    ProcessSpec spec = ProfileRunner::processSpec(request.command.value(0), request);
    spec.arguments = request.command.mid(1);
    spec.extraEnvironment.insert(QStringLiteral("CUDA_INJECTION64_PATH"), tracer);
    spec.extraEnvironment.insert(QStringLiteral("HOTKERNEL_TRACE_FILE"), trace);
    out.commands << QStringLiteral("on %1: CUDA_INJECTION64_PATH=%2 HOTKERNEL_TRACE_FILE=%3 %4")
                        .arg(alive->display(), shellQuote(tracer), shellQuote(trace), spec.commandLine());
    guard.job()->setProgress(0, 1,
                             QStringLiteral("running under the kernel tracer on %1").arg(alive->display()));
    const ProcessResult r = co_await RemoteToolbox::run(host, spec, guard.job());
    if (guard.stopped() || !alive)
        co_return out;
    ProfileRunner::checkRun(r, request.command.value(0) + QStringLiteral(" on ") + alive->display(),
                            request.timeoutSeconds);
    out.exitCode = r.exitCode;
    out.stderrTail = r.stderrTail(12);
    const std::optional<QByteArray> bytes = co_await RemoteToolbox::read(host, trace, guard.job());
    if (guard.stopped() || !alive)
        co_return out;
    if (!bytes)
        throw UserError(
            QStringLiteral("The tracer wrote no trace on %1 (exit %2). Either the command never initialised "
                           "CUDA there, or the driver did not load %3 (CUDA_INJECTION64_PATH).\n%4")
                .arg(alive->display(), QString::number(r.exitCode), tracer, out.stderrTail));
    out.report = saveHere(request, QStringLiteral(".trace.jsonl"), *bytes);
    out.table = co_await ProfileRunner::parseTrace(*bytes, out.report);
    co_await host->remove(folder->path, guard.job());
    folder->path.clear();
    co_return out;
}

// A plain function picks the task (docs/hacking.md, "Compiler rules").
QCoro::Task<QString> profilerOnHost(RemoteHost *host, bool ncu, Job *job)
{
    if (ncu)
        return RemoteToolbox::locate(host, QStringLiteral("ncu"), job);
    return RemoteToolbox::nativeHelper(host, NativeHelpers::tracerFileName(), job);
}

QCoro::Task<ProfileOutcome> profileWith(const ProfileRequest &request, const QString &program, bool ncu,
                                        RemoteHost *host, RemoteHost::FolderRemoval *folder, Job *job)
{
    if (ncu)
        return runNcu(request, program, host, folder, job);
    return runTrace(request, program, host, folder, job);
}

QCoro::Task<ProfileOutcome> refuseNsys(QString host)
{
    throw UserError(QStringLiteral("profile with nsys on a remote host is not built (%1): use tool \"trace\" "
                                   "(every kernel's time, from hotkernel's CUPTI tracer built there) or "
                                   "\"ncu\", or run nsys on the host itself.")
                        .arg(host));
    co_return ProfileOutcome();
}

} // namespace

QCoro::Task<ProfileOutcome> RemoteProfile::run(ProfileRequest request, RemoteHost *host, Job *job)
{
    if (request.command.isEmpty())
        throw UserError(
            QStringLiteral("Give the command to profile, e.g. [\"python\", \"rmsnorm_baseline.py\"]."));
    if (request.tool == QLatin1String("nsys"))
        co_return co_await refuseNsys(host->display());
    const bool ncu = request.tool == QLatin1String("ncu");
    if (!ncu && request.tool != QLatin1String("trace"))
        throw UserError(QStringLiteral("Unknown profiler '%1': use ncu or trace.").arg(request.tool));
    const JobGuard guard(job);
    const QPointer<RemoteHost> alive(host);
    // ncu found there, or the tracer built there; then a private folder for what they write.
    const QString program = co_await profilerOnHost(host, ncu, job);
    if (guard.stopped() || !alive || program.isEmpty())
        co_return ProfileOutcome();
    const QString purpose = QStringLiteral("profile");
    const QString dir = co_await host->makePrivateDir(guard.job(), purpose);
    if (guard.stopped() || !alive || dir.isEmpty())
        co_return ProfileOutcome();
    RemoteHost::FolderRemoval folder{alive, dir};
    co_return co_await profileWith(request, program, ncu, host, &folder, guard.job());
}

} // namespace hotkernel
