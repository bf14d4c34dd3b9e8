// SPDX-License-Identifier: Apache-2.0
#include "process/processancestry.h"

#include "base/boundedfile.h"

#include <sys/socket.h>

namespace hotkernel {

long long ProcessAncestry::peerPid(qintptr socketDescriptor)
{
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (socketDescriptor < 0 ||
        ::getsockopt(int(socketDescriptor), SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0 ||
        credentials.pid <= 0)
        return -1;
    return credentials.pid;
}

QList<long long> ProcessAncestry::lineOf(long long pid)
{
    QList<long long> line;
    // 4096 levels is far deeper than any real tree; it only bounds a loop /proc could never make.
    while (pid > 0 && line.size() < 4096) {
        const BoundedFile::Read stat = BoundedFile::read(QStringLiteral("/proc/%1/stat").arg(pid), 4096);
        if (!stat.ok())
            break;
        line << pid;
        if (pid == 1)
            break;
        // The command name in parentheses may itself hold ") ": the fields follow the last ')'.
        const qsizetype close = stat.bytes.lastIndexOf(')');
        const QList<QByteArray> fields = stat.bytes.mid(close + 1).simplified().split(' ');
        bool ok = false;
        const long long parent = fields.size() >= 2 ? fields.at(1).toLongLong(&ok) : -1;
        if (close < 0 || !ok || parent == pid)
            break;
        pid = parent;
    }
    return line;
}

long long ProcessAncestry::descendsFrom(long long pid, const QList<long long> &processes)
{
    for (long long ancestor : lineOf(pid))
        if (processes.contains(ancestor))
            return ancestor;
    return -1;
}

} // namespace hotkernel
