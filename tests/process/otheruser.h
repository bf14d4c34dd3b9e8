// SPDX-License-Identifier: Apache-2.0
// A second local user for the tests that play another user (issue 18): hk-test-other, created
// without a home directory when the test runs as root and it does not exist yet.
#pragma once

#include <QProcess>
#include <QString>

namespace hotkernel::test {

inline bool runQuietly(const QString &program, const QStringList &arguments)
{
    QProcess p;
    p.setStandardOutputFile(QProcess::nullDevice());
    p.setStandardErrorFile(QProcess::nullDevice());
    p.start(program, arguments);
    return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

// The user's name, or empty when there is none and it cannot be made (not root, no useradd).
inline QString otherUser()
{
    const QString name = QStringLiteral("hk-test-other");
    if (runQuietly(QStringLiteral("id"), {QStringLiteral("-u"), name}))
        return name;
    if (runQuietly(QStringLiteral("useradd"), {QStringLiteral("-M"), name}))
        return name;
    return {};
}

// Arguments for setpriv(1) that run the rest as that user. setpriv execs the command itself (no
// process in between, unlike runuser), so that QProcess's kill ends the command.
inline QStringList asUser(const QString &user)
{
    QProcess id;
    id.start(QStringLiteral("id"), {QStringLiteral("-g"), user});
    id.waitForFinished(60000);
    const QString gid = QString::fromLatin1(id.readAllStandardOutput().trimmed());
    return {QStringLiteral("--reuid=") + user, QStringLiteral("--regid=") + gid,
            QStringLiteral("--clear-groups"), QStringLiteral("--")};
}

} // namespace hotkernel::test
