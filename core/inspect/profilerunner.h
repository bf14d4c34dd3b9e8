// SPDX-License-Identifier: Apache-2.0
// Runs a command under Nsight Compute, Nsight Systems or hotkernel's CUPTI tracer as a coroutine
// (cancellable through the job), saves the report under the working directory's profiles/ and
// parses it into a KernelTable. Lives on the caller's thread; never blocks it.
#pragma once

#include "base/usererror.h"
#include "inspect/kernelstat.h"
#include "process/processspec.h"

#include <QCoroTask>
#include <QPointer>
#include <QStringList>

namespace hotkernel {

class Job;

struct ProfileRequest
{
    QString tool;        // "ncu", "nsys" or "trace"
    QStringList command; // argv of the program to profile
    QString workingDirectory;
    QString reportBase;         // absolute path without extension, inside profiles/
    QString kernelRegex;        // ncu: -k regex:..., matched against demangled names
    bool caseSensitive = false; // ncu: false prefixes the regex with (?i)
    int launchCount = 1;        // ncu: -c
    int launchSkip = 0;         // ncu: -s
    QString set;                // ncu: --set
    QStringList sections;       // ncu: --section, repeatable
    QString clockControl = QStringLiteral("none");
    bool importSource = false; // ncu: --import-source yes (for hot instructions)
    int timeoutSeconds = 600;
};

struct ProfileOutcome
{
    QString tool;
    QString report;       // the tool's own report (.ncu-rep, .nsys-rep, .trace.jsonl)
    QString summaryCsv;   // the CSV the summary was parsed from (ncu details, nsys kern-sum)
    QString sourceCsv;    // ncu with set full / import_source: the source page (SASS, stall samples)
    QString sourceNote;   // why there is no source page when one was expected
    QStringList commands; // every command run, shell-quoted
    KernelTable table;
    QString stderrTail; // the profiled program's last lines
    int exitCode = 0;
};

class ProfileRunner
{
public:
    // Throws UserError for known failures with what to do: tool missing, ERR_NVGPUCTRPERM,
    // no kernel matched, tracer not built.
    static QCoro::Task<ProfileOutcome> run(ProfileRequest request, Job *job);
    // The advice for ERR_NVGPUCTRPERM (performance counters restricted to admin users).
    static QString counterPermissionAdvice();

    // Pieces a profile on a remote host shares (RemoteProfile):
    // A process run for the request: program in its working directory, with its time limit.
    static ProcessSpec processSpec(const QString &program, const ProfileRequest &request);
    // ncu's options for the request, everything before `-o REPORT -f COMMAND...`.
    static QStringList ncuOptions(const ProfileRequest &request);
    // Throws UserError for a profiler run that failed as a whole (counter permission, not started,
    // past timeoutSeconds).
    static void checkRun(const ProcessResult &result, const QString &program, int timeoutSeconds);
    // ncu's error when it wrote no report (no kernel matched the filter, or its own complaint).
    static UserError noReportError(const ProfileRequest &request, const ProcessResult &result,
                                   const QString &stderrTail);
    // `ncu --import REPORT --csv --page details` (or the source page with its SASS).
    static QStringList ncuExportArguments(const QString &report, bool sourcePage);
    // Whether the request asks for ncu's source page (set full or import_source).
    static bool wantsSourcePage(const ProfileRequest &request);
    // Parsers run on a worker thread: ncu's details CSV, the tracer's JSON lines.
    static QCoro::Task<KernelTable> parseNcuDetails(QByteArray csv, QString path);
    static QCoro::Task<KernelTable> parseTrace(QByteArray trace, QString path);
};

} // namespace hotkernel
