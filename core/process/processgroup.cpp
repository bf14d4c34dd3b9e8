// SPDX-License-Identifier: Apache-2.0
#include "process/processgroup.h"

#include "process/supervisor.h"

#include <QProcess>

#include <cerrno>
#include <csignal>
#include <unistd.h>

namespace hotkernel {

void putInOwnProcessGroup(QProcess &process)
{
    process.setChildProcessModifier([] { ::setpgid(0, 0); });
}

void killProcessGroup(QProcess &process)
{
    killProcessGroup(process.processId());
}

void killProcessGroup(long long groupId)
{
    if (Supervisor::isSupervisor(groupId)) {
        // It ends its whole subtree, escaped sessions included, then exits itself.
        ::kill(static_cast<pid_t>(groupId), SIGTERM);
        return;
    }
    if (groupId > 0) {
        ::kill(-static_cast<pid_t>(groupId), SIGKILL);
        ::kill(static_cast<pid_t>(groupId), SIGKILL);
    }
}

bool processGroupAlive(long long groupId)
{
    if (groupId <= 0)
        return false;
    return ::kill(-static_cast<pid_t>(groupId), 0) == 0 || errno == EPERM;
}

} // namespace hotkernel
