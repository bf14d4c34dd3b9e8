// SPDX-License-Identifier: Apache-2.0
// What the end-to-end tests of remote hosts (tst_remotessh, tst_remoteslurm) share: running the
// hotkernel binary in a project, a tool call through an in-process Session, and the search of
// /proc for processes left behind.
#pragma once

#include "measure/measuretesthelpers.h"
#include "session/session.h"
#include "testlimits.h"

#include <QByteArray>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStringList>
#include <QTest>

#include <unistd.h>

namespace hotkernel::test {

inline QByteArray readFile(const QString &file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Every process but this one whose command line mentions marker (a remote working directory's
// path marks the remote side's processes and the local ssh or srun that carries them).
inline QStringList processesWith(const QString &marker)
{
    QStringList found;
    const QByteArray needle = marker.toUtf8();
    const QString self = QString::number(::getpid());
    for (QDirIterator it(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot); it.hasNext();) {
        const QString pid = QFileInfo(it.next()).fileName();
        bool number = false;
        pid.toLongLong(&number);
        if (!number || pid == self)
            continue;
        QByteArray cmdline = readFile(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (cmdline.contains(needle))
            found << pid + QLatin1Char(' ') + QString::fromUtf8(cmdline.replace('\0', ' ')).left(160);
    }
    return found;
}

// Runs the hotkernel binary in directory; its exit code, or -1 when it did not end in time.
inline int runHotkernel(const QString &directory, const QProcessEnvironment &environment,
                        const QStringList &arguments, QByteArray *out, QByteArray *err)
{
    QProcess p;
    p.setWorkingDirectory(directory);
    p.setProcessEnvironment(environment);
    p.start(QStringLiteral(HOTKERNEL_BINARY), arguments);
    if (!p.waitForFinished(kEventLimitMs)) {
        p.kill();
        p.waitForFinished();
        return -1;
    }
    *out = p.readAllStandardOutput();
    *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

// One tool call in an in-process session, waited for; an error result when it did not finish.
inline ToolResult callTool(Session &session, const QString &tool, const Json &arguments)
{
    auto r = capture(session.call(tool, arguments, QStringLiteral("test")));
    (void)QTest::qWaitFor([&] { return r->done; }, kEventLimitMs);
    return r->value ? *r->value : ToolResult::error(QStringLiteral("did not finish: ") + r->error);
}

} // namespace hotkernel::test
