// SPDX-License-Identifier: Apache-2.0
// Finds what a test started, however it detached: every process whose environment carries the
// test's unique marker variable (children inherit it through setsid, double forks and exec).
#pragma once

#include <QDir>
#include <QFile>
#include <QList>
#include <QUuid>

namespace hotkernel::test {

// NAME=VALUE, unique per call.
inline QByteArray newMarker()
{
    return "HOTKERNEL_TEST_MARKER=" + QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
}

inline QByteArray markerName(const QByteArray &marker)
{
    return marker.left(marker.indexOf('='));
}
inline QByteArray markerValue(const QByteArray &marker)
{
    return marker.mid(marker.indexOf('=') + 1);
}

struct MarkedProcess
{
    long long pid;
    QByteArray command; // /proc/PID/comm
};

// Live processes with the marker in their environment (zombies have none and do not count).
inline QList<MarkedProcess> markedProcesses(const QByteArray &marker)
{
    QList<MarkedProcess> found;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool ok = false;
        const long long pid = entry.toLongLong(&ok);
        if (!ok)
            continue;
        QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
        if (!environ.open(QIODevice::ReadOnly))
            continue;
        if (!environ.readAll().split('\0').contains(marker))
            continue;
        QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
        found.append({pid, comm.open(QIODevice::ReadOnly) ? comm.readAll().trimmed() : QByteArray()});
    }
    return found;
}

inline bool anyMarkedProcess(const QByteArray &marker, const QByteArray &command)
{
    for (const MarkedProcess &p : markedProcesses(marker)) {
        if (p.command == command)
            return true;
    }
    return false;
}

inline QString describe(const QList<MarkedProcess> &processes)
{
    QStringList parts;
    for (const MarkedProcess &p : processes)
        parts.append(QStringLiteral("%1 %2").arg(p.pid).arg(QString::fromUtf8(p.command)));
    return parts.join(QStringLiteral(", "));
}

} // namespace hotkernel::test
