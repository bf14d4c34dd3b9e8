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

std::optional<QList<QByteArray>> ProcessAncestry::statFields(long long pid)
{
    const BoundedFile::Read stat = BoundedFile::read(QStringLiteral("/proc/%1/stat").arg(pid), 64 * 1024);
    if (!stat.ok())
        return std::nullopt;
    // The command name in parentheses may itself hold ") ": the fields follow the last ')'.
    const qsizetype close = stat.bytes.lastIndexOf(')');
    if (close < 0)
        return QList<QByteArray>();
    return stat.bytes.mid(close + 1).simplified().split(' ');
}

std::optional<long long> ProcessAncestry::statField(long long pid, int k)
{
    const std::optional<QList<QByteArray>> fields = statFields(pid);
    if (!fields)
        return std::nullopt;
    return fields->size() > k ? fields->at(k).toLongLong() : 0;
}

QList<long long> ProcessAncestry::lineOf(long long pid)
{
    QList<long long> line;
    // 4096 levels is far deeper than any real tree; it only bounds a loop /proc could never make.
    while (pid > 0 && line.size() < 4096) {
        const std::optional<long long> parent = statField(pid, 1);
        if (!parent)
            break;
        line << pid;
        if (pid == 1 || *parent == pid)
            break;
        pid = *parent; // 0 when unreadable: the walk ends
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
