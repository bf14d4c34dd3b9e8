// SPDX-License-Identifier: Apache-2.0
// The ssh command lines of one session's host: the master connection, commands multiplexed over
// it (one ControlPath per session) and rsync's transport. A value; pure except for reading the
// environment. Any thread.
#pragma once

#include "remote/hosturl.h"
#include "remote/remoteshell.h"

#include <QByteArray>
#include <QStringList>

namespace hotkernel {

class SshHost : public RemoteShell
{
public:
    // controlPath: the master's socket, in the per-user runtime directory; localRoot: the
    // session's directory, which the remote working directory mirrors.
    SshHost(HostUrl url, QString controlPath, QString localRoot);

    const HostUrl &url() const { return m_url; }
    QString display() const override { return m_url.toString(); }
    const QString &controlPath() const { return m_controlPath; }

    // ssh (HOTKERNEL_SSH names another binary, e.g. one unpacked into a private prefix) and rsync
    // (HOTKERNEL_RSYNC).
    static QString sshProgram();
    static QString rsyncProgram();

    // The master: authenticates, then serves the multiplexed commands until it is ended.
    QStringList masterArguments() const;
    // One command through the master (never a connection of its own: ControlMaster=no).
    QString program() const override { return sshProgram(); }
    QStringList commandArguments(const QString &remoteCommand) const override;
    // Ends the master (`ssh -O exit`).
    QStringList exitArguments() const;
    // rsync's -e: ssh over the same master.
    QString rsyncShell() const;
    // user@host for rsync's destination (host alone when no user is named).
    QString destination() const;

    // What a failed ssh (exit 255, or a master that ended) said, as a message that names the host
    // and the fix. stderrText: ssh's standard error.
    QString describeFailure(const QByteArray &stderrText) const override;
    static bool isSshFailure(int exitCode) { return exitCode == 255; }
    bool isTransportFailure(int exitCode, const QByteArray &) const override
    {
        return isSshFailure(exitCode);
    }

private:
    QStringList commonOptions() const;

    HostUrl m_url;
    QString m_controlPath;
};

} // namespace hotkernel
