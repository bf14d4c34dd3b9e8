// SPDX-License-Identifier: Apache-2.0
#include "inspect/profilerunner.h"

#include "base/boundedfile.h"
#include "base/confinedwrite.h"
#include "base/jobguard.h"
#include "base/usererror.h"
#include "inspect/cudatools.h"
#include "inspect/ncudetailsparser.h"
#include "inspect/ncukernelfilter.h"
#include "inspect/nsyskernsumparser.h"
#include "inspect/traceparser.h"
#include "process/processrunner.h"

#include <QCoroFuture>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent>

#include <optional>

namespace hotkernel {

namespace {

struct ParseResult
{
    KernelTable table;
    QString error;
};

using Parser = KernelTable (*)(QByteArrayView, const QString &);

// Parsers throw UserError; QtConcurrent only forwards QException, so the message travels back as a value.
ParseResult parseCaught(Parser parse, const QByteArray &data, const QString &path)
{
    ParseResult out;
    try {
        out.table = parse(data, path);
    } catch (const UserError &e) {
        out.error = e.message();
    }
    return out;
}

// A named function and its arguments, no capturing lambda (docs/hacking.md, "Compiler rules").
QCoro::Task<KernelTable> parseOffThread(QByteArray data, QString path, Parser parse)
{
    const ParseResult r = co_await QtConcurrent::run(parseCaught, parse, data, path);
    if (!r.error.isEmpty())
        throw UserError(r.error);
    co_return r.table;
}

// Every file a profile leaves goes through ConfinedWrite: never outside the working directory,
// never through a symlink, replaced atomically.
void saveFile(const QString &root, const QString &path, const QByteArray &data)
{
    ConfinedWrite::writeFile(root, QDir(root).relativeFilePath(path), data);
}

// The profilers write their files themselves (ncu, nsys and the tracer open what they are
// given, following symlinks), so they get a private scratch folder inside the report's folder;
// publish() moves each finished file into place by rename, replacing whatever is at the name. The
// scratch folder and whatever a tool left in it (nsys stats' .sqlite) go when this is destroyed.
class ReportFiles
{
public:
    explicit ReportFiles(const ProfileRequest &request)
        : m_dir(ConfinedDir::open(request.workingDirectory, QFileInfo(request.reportBase).path())),
          m_scratch(m_dir, QStringLiteral("profile")), m_name(QFileInfo(request.reportBase).fileName())
    {}
    // Where the tool writes the file with this suffix.
    QString scratch(const QString &suffix = {}) const { return m_scratch.filePath(m_name + suffix); }
    bool produced(const QString &suffix) const { return m_scratch.dir().hasFile(m_name + suffix); }
    QString publish(const QString &suffix) const
    {
        m_dir.moveFrom(m_scratch.dir(), m_name + suffix, m_name + suffix);
        return m_dir.filePath(m_name + suffix);
    }

private:
    ConfinedDir m_dir;
    ConfinedTempDir m_scratch;
    QString m_name;
};

// Runs the profiler (or the traced command) with the checks every profiler shares, and keeps its
// exit code and stderr tail in out. Empty when the job was cancelled.
QCoro::Task<std::optional<ProcessResult>> runProfiled(const ProcessSpec &spec, const ProfileRequest &request,
                                                      const QString &progress, int steps, ProfileOutcome *out,
                                                      Job *job)
{
    const JobGuard guard(job);
    if (job)
        job->setProgress(0, steps, progress);
    ProcessResult r = co_await ProcessRunner::run(spec, job);
    if (guard.stopped())
        co_return std::nullopt;
    ProfileRunner::checkRun(r, spec.program, request.timeoutSeconds);
    out->exitCode = r.exitCode;
    out->stderrTail = r.stderrTail(12);
    co_return std::optional<ProcessResult>(std::move(r));
}

// A process run, or an empty result at once when spec.program is empty.
QCoro::Task<ProcessResult> runIfNeeded(const ProcessSpec &spec, Job *job)
{
    if (spec.program.isEmpty())
        co_return ProcessResult();
    co_return co_await ProcessRunner::run(spec, job);
}

QCoro::Task<ProfileOutcome> runNcu(ProfileRequest request, Job *job)
{
    const JobGuard guard(job);
    ProfileOutcome out;
    out.tool = QStringLiteral("ncu");
    const QString ncu = CudaTools::require(QStringLiteral("ncu"), QStringLiteral("HOTKERNEL_NCU"));
    const ReportFiles files(request);
    ProcessSpec spec = ProfileRunner::processSpec(ncu, request);
    spec.arguments = ProfileRunner::ncuOptions(request);
    spec.arguments << QStringLiteral("-o") << files.scratch() << QStringLiteral("-f");
    spec.arguments << request.command;
    out.commands << spec.commandLine();
    const QString profiling = QStringLiteral("profiling with ncu (each kernel is replayed; this is slow)");
    const std::optional<ProcessResult> r = co_await runProfiled(spec, request, profiling, 2, &out, job);
    if (!r)
        co_return out;
    if (!files.produced(QStringLiteral(".ncu-rep")))
        throw ProfileRunner::noReportError(request, *r, out.stderrTail);
    out.report = files.publish(QStringLiteral(".ncu-rep"));

    if (guard.job())
        guard.job()->setProgress(1, 2, QStringLiteral("exporting the details page"));
    ProcessSpec exportSpec = ProfileRunner::processSpec(ncu, request);
    exportSpec.timeout = std::chrono::minutes(5);
    exportSpec.arguments = ProfileRunner::ncuExportArguments(out.report, false);
    out.commands << exportSpec.commandLine();
    const ProcessResult e = co_await ProcessRunner::run(exportSpec, guard.job());
    if (guard.stopped())
        co_return out;
    if (!e.succeeded())
        throw UserError(QStringLiteral("`%1` failed: %2").arg(exportSpec.commandLine(), e.stderrTail(6)));
    out.summaryCsv = request.reportBase + QStringLiteral(".details.csv");
    saveFile(request.workingDirectory, out.summaryCsv, e.standardOutput);
    out.table = co_await ProfileRunner::parseNcuDetails(e.standardOutput, out.summaryCsv);

    // The source page holds every profiled kernel's SASS with executed counts and stall samples:
    // exported here, disasm reads hot instructions from it with no binary at hand.
    ProcessSpec sourceSpec = ProfileRunner::processSpec(ncu, request);
    sourceSpec.timeout = std::chrono::minutes(5);
    if (ProfileRunner::wantsSourcePage(request))
        sourceSpec.arguments = ProfileRunner::ncuExportArguments(out.report, true);
    else
        sourceSpec.program.clear(); // nothing to export; the co_await below still runs (g++ 12)
    if (guard.job() && !sourceSpec.program.isEmpty())
        guard.job()->setProgress(1, 2, QStringLiteral("exporting the source page (SASS with stall samples)"));
    const ProcessResult src = co_await runIfNeeded(sourceSpec, guard.job());
    if (guard.stopped())
        co_return out;
    if (!sourceSpec.program.isEmpty()) {
        out.commands << sourceSpec.commandLine();
        if (!src.succeeded() || !src.standardOutput.contains("\"Kernel Name\""))
            out.sourceNote = QStringLiteral("`%1` gave no source page: %2")
                                 .arg(sourceSpec.commandLine(), src.stderrTail(4));
        else {
            out.sourceCsv = request.reportBase + QStringLiteral(".source-sass.csv");
            saveFile(request.workingDirectory, out.sourceCsv, src.standardOutput);
        }
    }
    co_return out;
}

QCoro::Task<ProfileOutcome> runNsys(ProfileRequest request, Job *job)
{
    const JobGuard guard(job);
    ProfileOutcome out;
    out.tool = QStringLiteral("nsys");
    const QString nsys = CudaTools::require(QStringLiteral("nsys"), QStringLiteral("HOTKERNEL_NSYS"));
    const ReportFiles files(request);
    ProcessSpec spec = ProfileRunner::processSpec(nsys, request);
    spec.arguments << QStringLiteral("profile") << QStringLiteral("--trace") << QStringLiteral("cuda")
                   << QStringLiteral("--force-overwrite") << QStringLiteral("true") << QStringLiteral("-o")
                   << files.scratch() << request.command;
    out.commands << spec.commandLine();
    const QString tracing = QStringLiteral("tracing with nsys");
    const std::optional<ProcessResult> r = co_await runProfiled(spec, request, tracing, 2, &out, job);
    if (!r)
        co_return out;
    if (!files.produced(QStringLiteral(".nsys-rep")))
        throw UserError(
            QStringLiteral("nsys wrote no report (exit %1):\n%2").arg(r->exitCode).arg(out.stderrTail));

    // stats reads the report where nsys left it: it writes a .sqlite export beside the report,
    // which stays in the scratch folder and goes with it.
    const QString scratchReport = files.scratch(QStringLiteral(".nsys-rep"));
    if (guard.job())
        guard.job()->setProgress(1, 2, QStringLiteral("summarising kernels"));
    // cuda_gpu_kern_sum since nsys 2023; gpukernsum before.
    QByteArray csv;
    const QStringList reportNames{QStringLiteral("cuda_gpu_kern_sum"), QStringLiteral("gpukernsum")};
    ProcessSpec stats = ProfileRunner::processSpec(nsys, request);
    stats.timeout = std::chrono::minutes(5);
    ProcessResult s;
    for (const QString &report : reportNames) {
        stats.arguments = QStringList{QStringLiteral("stats"),
                                      QStringLiteral("--report"),
                                      report,
                                      QStringLiteral("--format"),
                                      QStringLiteral("csv"),
                                      QStringLiteral("--output"),
                                      QStringLiteral("-"),
                                      scratchReport};
        s = co_await ProcessRunner::run(stats, guard.job());
        if (guard.stopped() || (s.succeeded() && s.standardOutput.contains("Total Time")))
            break;
    }
    if (guard.stopped())
        co_return out;
    out.report = files.publish(QStringLiteral(".nsys-rep"));
    if (s.succeeded() && s.standardOutput.contains("Total Time")) {
        out.commands << stats.commandLine();
        csv = s.standardOutput;
    }
    if (csv.isEmpty())
        throw UserError(
            QStringLiteral("`nsys stats --report cuda_gpu_kern_sum` found no kernels in %1: did the command "
                           "launch any CUDA kernel?")
                .arg(out.report));
    out.summaryCsv = request.reportBase + QStringLiteral(".kernsum.csv");
    saveFile(request.workingDirectory, out.summaryCsv, csv);
    out.table = co_await parseOffThread(csv, out.summaryCsv, &NsysKernSumParser::parse);
    co_return out;
}

QCoro::Task<ProfileOutcome> runTrace(ProfileRequest request, Job *job)
{
    ProfileOutcome out;
    out.tool = QStringLiteral("trace");
    QStringList tried;
    const QString library = CudaTools::tracerLibrary(&tried);
    if (library.isEmpty())
        throw UserError(
            QStringLiteral("hotkernel's kernel tracer (libhotkernel_tracer.so) is not here (looked at: %1). "
                           "It is built only when the CUDA Toolkit with CUPTI is found at build time: "
                           "rebuild hotkernel with the toolkit installed, set HOTKERNEL_TRACER to a built "
                           "library, or use tool \"ncu\".")
                .arg(tried.join(QStringLiteral(", "))));
    // A fresh scratch folder: the tracer appends (several processes share one file), so it never
    // finds an old trace there.
    const ReportFiles files(request);
    const QString scratchTrace = files.scratch(QStringLiteral(".trace.jsonl"));
    ProcessSpec spec = ProfileRunner::processSpec(request.command.value(0), request);
    spec.arguments = request.command.mid(1);
    spec.extraEnvironment.insert(QStringLiteral("CUDA_INJECTION64_PATH"), library);
    spec.extraEnvironment.insert(QStringLiteral("HOTKERNEL_TRACE_FILE"), scratchTrace);
    out.commands << QStringLiteral("CUDA_INJECTION64_PATH=%1 HOTKERNEL_TRACE_FILE=%2 %3")
                        .arg(shellQuote(library), shellQuote(scratchTrace), spec.commandLine());
    const QString tracing = QStringLiteral("running under the kernel tracer");
    const std::optional<ProcessResult> r = co_await runProfiled(spec, request, tracing, 1, &out, job);
    if (!r)
        co_return out;
    if (!files.produced(QStringLiteral(".trace.jsonl")))
        throw UserError(
            QStringLiteral("The tracer wrote no trace (exit %1). Either the command never initialised CUDA, "
                           "or the driver did not load %2 (CUDA_INJECTION64_PATH).\n%3")
                .arg(r->exitCode)
                .arg(library, out.stderrTail));
    out.report = files.publish(QStringLiteral(".trace.jsonl"));
    const BoundedFile::Read trace =
        BoundedFile::read(out.report, BoundedFile::kReportLimit, BoundedFile::Links::Refuse);
    if (!trace.ok())
        throw UserError(QStringLiteral("The trace ") + out.report + QLatin1Char(' ') + trace.error +
                        QStringLiteral(": run profile again."));
    out.table = co_await ProfileRunner::parseTrace(trace.bytes, out.report);
    co_return out;
}

} // namespace

QString ProfileRunner::counterPermissionAdvice()
{
    return QStringLiteral(
        "ncu failed with ERR_NVGPUCTRPERM: this user may not read the GPU's performance counters (the driver "
        "restricts "
        "them to administrators by default). Either run as root (sudo), or allow all users once: create "
        "/etc/modprobe.d/nvidia-profiler.conf with `options nvidia NVreg_RestrictProfilingToAdminUsers=0`, "
        "then reload "
        "the driver or reboot (see https://developer.nvidia.com/ERR_NVGPUCTRPERM). In a container, start it "
        "with "
        "--cap-add=SYS_ADMIN. Meanwhile `profile --tool trace` times kernels without counters.");
}

ProcessSpec ProfileRunner::processSpec(const QString &program, const ProfileRequest &request)
{
    ProcessSpec spec;
    spec.program = program;
    spec.workingDirectory = request.workingDirectory;
    spec.timeout = std::chrono::seconds(request.timeoutSeconds);
    return spec;
}

QStringList ProfileRunner::ncuOptions(const ProfileRequest &request)
{
    QStringList args;
    args << QStringLiteral("--clock-control") << request.clockControl;
    // Match the names every table shows (demangled, "void at::native::...GeluCUDAKernelImpl..."),
    // not ncu's default function base name, and ignore case unless asked not to.
    if (!request.kernelRegex.isEmpty())
        args << QStringLiteral("--kernel-name-base") << QStringLiteral("demangled") << QStringLiteral("-k")
             << NcuKernelFilter::argument(request.kernelRegex, request.caseSensitive);
    if (request.launchSkip > 0)
        args << QStringLiteral("-s") << QString::number(request.launchSkip);
    if (request.launchCount > 0)
        args << QStringLiteral("-c") << QString::number(request.launchCount);
    if (!request.set.isEmpty())
        args << QStringLiteral("--set") << request.set;
    for (const QString &section : request.sections)
        args << QStringLiteral("--section") << section;
    if (request.importSource)
        args << QStringLiteral("--import-source") << QStringLiteral("yes");
    return args;
}

void ProfileRunner::checkRun(const ProcessResult &r, const QString &program, int timeoutSeconds)
{
    const QByteArray all = r.standardOutput + r.standardError;
    if (all.contains("ERR_NVGPUCTRPERM"))
        throw UserError(ProfileRunner::counterPermissionAdvice());
    if (r.status == ProcessResult::Status::FailedToStart)
        throw UserError(QStringLiteral("Could not start %1: %2.").arg(program, r.errorString));
    if (r.status == ProcessResult::Status::TimedOut)
        throw UserError(
            QStringLiteral("The profiled command ran past %1 s and was stopped. ncu replays each profiled "
                           "kernel many times: narrow it with kernel_regex and launch_count, or raise "
                           "timeout_s.")
                .arg(timeoutSeconds));
}

UserError ProfileRunner::noReportError(const ProfileRequest &request, const ProcessResult &r,
                                       const QString &stderrTail)
{
    const QByteArray all = r.standardOutput + r.standardError;
    if (all.contains("No kernels were profiled"))
        return UserError(NcuKernelFilter::noMatchMessage(request.kernelRegex, request.caseSensitive,
                                                         NcuKernelFilter::availableKernels(all), stderrTail));
    return UserError(QStringLiteral("ncu wrote no report (exit %1):\n%2").arg(r.exitCode).arg(stderrTail));
}

QStringList ProfileRunner::ncuExportArguments(const QString &report, bool sourcePage)
{
    QStringList args{QStringLiteral("--import"), report, QStringLiteral("--csv"), QStringLiteral("--page")};
    if (sourcePage)
        args << QStringLiteral("source") << QStringLiteral("--print-source") << QStringLiteral("sass");
    else
        args << QStringLiteral("details");
    return args;
}

bool ProfileRunner::wantsSourcePage(const ProfileRequest &request)
{
    return request.set == QLatin1String("full") || request.importSource;
}

QCoro::Task<KernelTable> ProfileRunner::parseNcuDetails(QByteArray csv, QString path)
{
    co_return co_await parseOffThread(csv, path, &NcuDetailsParser::parse);
}

QCoro::Task<KernelTable> ProfileRunner::parseTrace(QByteArray trace, QString path)
{
    co_return co_await parseOffThread(trace, path, &TraceParser::parse);
}

QCoro::Task<ProfileOutcome> ProfileRunner::run(ProfileRequest request, Job *job)
{
    if (request.command.isEmpty())
        throw UserError(
            QStringLiteral("Give the command to profile, e.g. [\"python\", \"rmsnorm_baseline.py\"]."));
    if (request.tool == QLatin1String("ncu"))
        co_return co_await runNcu(std::move(request), job);
    if (request.tool == QLatin1String("nsys"))
        co_return co_await runNsys(std::move(request), job);
    if (request.tool == QLatin1String("trace"))
        co_return co_await runTrace(std::move(request), job);
    throw UserError(QStringLiteral("Unknown profiler '%1': use ncu, nsys or trace.").arg(request.tool));
}

} // namespace hotkernel
