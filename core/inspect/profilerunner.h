// SPDX-License-Identifier: Apache-2.0
// Runs a command under Nsight Compute, Nsight Systems or hotkernel's CUPTI tracer as a coroutine
// (cancellable through the job), saves the report under the working directory's profiles/ and
// parses it into a KernelTable. Lives on the caller's thread; never blocks it.
#pragma once

#include "inspect/kernelstat.h"

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
};

} // namespace hotkernel
