// SPDX-License-Identifier: Apache-2.0
// Runs cuobjdump / nvdisasm as coroutines (cancellable through the job) and parses their output
// on a worker thread. Lives on the caller's thread; never blocks it.
#pragma once

#include "inspect/sassinstruction.h"

#include <QCoroTask>
#include <QPointer>

#include <map>

namespace hotkernel {

class Job;

class DisasmRunner
{
public:
    // SASS ("sass") or PTX ("ptx") of a .cubin, .ptx, .so or executable. tool: "cuobjdump",
    // "nvdisasm" (SASS of a cubin only) or "auto" (nvdisasm for a cubin, cuobjdump otherwise:
    // nvdisasm prints branch labels). A .ptx file is read directly.
    // Throws UserError when a tool is missing or fails, naming the command and its stderr.
    static QCoro::Task<std::vector<SassFunction>> disassemble(QString path, QString level, QString tool,
                                                              Job *job, QString *commandLine = nullptr);
    // `cuobjdump -res-usage`: per function REG, STACK, SHARED, LOCAL, ... as printed; an empty
    // map at once for an empty path (so callers can await it unconditionally).
    static QCoro::Task<std::map<QString, std::map<QString, QString>>> resourceUsage(QString path, Job *job);
    // Parses `cuobjdump -res-usage` output. Pure.
    static std::map<QString, std::map<QString, QString>> parseResourceUsage(QByteArrayView text);
};

} // namespace hotkernel
