// SPDX-License-Identifier: Apache-2.0
// Who is at the other end of a local socket, and which processes it descends from (issue 41: a
// session refuses calls from its own workers' process trees, so a candidate cannot ask hotkernel to
// calibrate or record for it). Reads /proc; any thread.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace hotkernel {

class ProcessAncestry
{
public:
    // Field k of /proc/PID/stat counted after the command name (0: the state, 1: the parent, 2:
    // the process group); nullopt when the process is gone, 0 when the field cannot be read.
    static std::optional<long long> statField(long long pid, int k);
    // Every field of /proc/PID/stat after the command name, as statField counts them; nullopt when
    // the process is gone, an empty list when the file cannot be parsed.
    static std::optional<QList<QByteArray>> statFields(long long pid);
    // The pid of the process connected to a Unix socket descriptor (SO_PEERCRED), or -1.
    static long long peerPid(qintptr socketDescriptor);
    // pid, its parent, its parent's parent, ... up to pid 1, read from /proc/PID/stat; empty when
    // pid's own entry cannot be read (the process is gone).
    static QList<long long> lineOf(long long pid);
    // The first of `processes` that is pid or one of its ancestors, or -1. A supervised worker's
    // descendants stay below its supervisor even after setsid or a double fork (the supervisor is
    // a child subreaper), so naming the supervisors covers the whole tree.
    static long long descendsFrom(long long pid, const QList<long long> &processes);
};

} // namespace hotkernel
