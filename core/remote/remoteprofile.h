// SPDX-License-Identifier: Apache-2.0
// profile on a session's remote host (issue 24): ncu or hotkernel's CUPTI tracer runs there, its
// report and CSV exports are made there in a private folder, and come back into the local
// profiles/ under the same names a local profile uses, so the window and disasm open them as
// theirs. Lives on the Session's thread; never blocks it.
#pragma once

#include "inspect/profilerunner.h"

#include <QCoroTask>

namespace hotkernel {

class Job;
class RemoteHost;

class RemoteProfile
{
public:
    // request.command and request.workingDirectory are as the local profile has them (local paths
    // under the session's directory are mapped to the host's; the interpreter is the host's);
    // request.reportBase is the local report's name. tool "nsys" is refused (not looked for on a
    // host). Throws UserError as ProfileRunner does, naming the host. Empty outcome when cancelled.
    static QCoro::Task<ProfileOutcome> run(ProfileRequest request, RemoteHost *host, Job *job);
};

} // namespace hotkernel
