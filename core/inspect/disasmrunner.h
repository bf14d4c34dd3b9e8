// SPDX-License-Identifier: Apache-2.0
// Runs cuobjdump / nvdisasm on the session's host (this machine or a remote one, docs/hosts.md) as
// coroutines, cancellable through the job, and parses their output on a worker thread. Lives on
// the caller's thread; never blocks it.
#pragma once

#include "base/usererror.h"
#include "inspect/sassinstruction.h"

#include <QCoroTask>
#include <QPointer>
#include <QStringList>

#include <map>

namespace hotkernel {

class Host;
class Job;

// Which program disassembles a file, and how (pure).
struct DisasmPlan
{
    QString tool;          // "cuobjdump" or "nvdisasm"; empty: a .ptx file, read as it is
    QString variable;      // HOTKERNEL_CUOBJDUMP or HOTKERNEL_NVDISASM
    QStringList arguments; // after the program
    bool ptx = false;      // the output is PTX
};

class DisasmRunner
{
public:
    // The plan for disassemble()'s arguments; throws UserError for a combination that cannot work
    // (SASS of a .ptx file, nvdisasm of a non-cubin).
    static DisasmPlan plan(const QString &path, const QString &level, QString tool);
    // cuobjdump -res-usage's arguments for path.
    static QStringList resourceUsageArguments(const QString &path);
    // A listing parsed on a worker thread.
    static QCoro::Task<std::vector<SassFunction>> parseOffThread(QByteArray output, bool ptx);
    // The error for a disassembler that ran and failed (commandLine: as shown to the user).
    static UserError failure(const QString &commandLine, int exitCode, const QString &stderrTail);

    // SASS ("sass") or PTX ("ptx") of a .cubin, .ptx, .so or executable on the host (path as the
    // session names it; one under the session's directory is the host's copy). tool: "cuobjdump",
    // "nvdisasm" (SASS of a cubin only) or "auto" (nvdisasm for a cubin, cuobjdump otherwise:
    // nvdisasm prints branch labels). A .ptx file is read directly. Throws UserError when a tool is
    // missing or fails, naming the command (and the host) and its stderr. Empty when the job was
    // cancelled.
    static QCoro::Task<std::vector<SassFunction>> disassemble(Host &host, QString path, QString level,
                                                              QString tool, Job *job,
                                                              QString *commandLine = nullptr);
    // `cuobjdump -res-usage` on the host: per function REG, STACK, SHARED, LOCAL, ... as printed;
    // an empty map at once for an empty path (so callers can await it unconditionally).
    static QCoro::Task<std::map<QString, std::map<QString, QString>>> resourceUsage(Host &host, QString path,
                                                                                    Job *job);
    // Parses `cuobjdump -res-usage` output. Pure.
    static std::map<QString, std::map<QString, QString>> parseResourceUsage(QByteArrayView text);
};

} // namespace hotkernel
