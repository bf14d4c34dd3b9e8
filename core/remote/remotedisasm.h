// SPDX-License-Identifier: Apache-2.0
// disasm on a session's remote host (issue 24): cuobjdump or nvdisasm runs there on a file there
// (a cubin or binary built there, or one copied from the session's directory), and its listing is
// parsed here as a local one is. Lives on the Session's thread; never blocks it.
#pragma once

#include "inspect/sassinstruction.h"

#include <QCoroTask>
#include <QString>

#include <map>
#include <vector>

namespace hotkernel {

class Job;
class RemoteHost;

class RemoteDisasm
{
public:
    // DisasmRunner::disassemble() on the host: path is the file as the host sees it (a path under
    // the session's directory is mapped to the host's). Throws UserError naming the host when the
    // tool is missing there or fails. Empty when the job was cancelled.
    static QCoro::Task<std::vector<SassFunction>> disassemble(QString path, QString level, QString tool,
                                                              RemoteHost *host, Job *job,
                                                              QString *commandLine = nullptr);
    // DisasmRunner::resourceUsage() on the host; empty at once for an empty path.
    static QCoro::Task<std::map<QString, std::map<QString, QString>>>
    resourceUsage(QString path, RemoteHost *host, Job *job);
};

} // namespace hotkernel
