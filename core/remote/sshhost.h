// SPDX-License-Identifier: Apache-2.0
// The ssh command lines of one session's host: the master connection, commands multiplexed over
// it (one ControlPath per session), rsync's transport, and the wrapping that makes a local
// ProcessSpec or worker QProcess run on the host, in its working directory, under the remote
// supervisor we ship (resources/remote/). A value; pure except for reading the environment. Any thread.
#pragma once

#include "remote/hosturl.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QStringList>

class QProcess;

namespace hotkernel {

struct ProcessSpec;

class SshHost
{
public:
    SshHost() = default;
    // controlPath: the master's socket, in the per-user runtime directory; localRoot: the
    // session's directory, which the remote working directory mirrors.
    SshHost(HostUrl url, QString controlPath, QString localRoot);

    const HostUrl &url() const { return m_url; }
    QString display() const { return m_url.toString(); }
    const QString &controlPath() const { return m_controlPath; }
    const QString &localRoot() const { return m_localRoot; }

    // Known once connected: the remote working directory (absolute), the interpreter, the
    // supervisor script's path there.
    void setRemoteWorkdir(const QString &dir) { m_remoteWorkdir = dir; }
    const QString &remoteWorkdir() const { return m_remoteWorkdir; }
    void setRemotePython(const QString &python) { m_python = python; }
    QString remotePython() const;
    QString supervisorPath() const; // <workdir>/.hotkernel/hotkernel-remote-supervise.py

    // ssh (HOTKERNEL_SSH names another binary, e.g. one unpacked into a private prefix) and rsync
    // (HOTKERNEL_RSYNC).
    static QString sshProgram();
    static QString rsyncProgram();

    // The master: authenticates, then serves the multiplexed commands until it is ended.
    QStringList masterArguments() const;
    // One command through the master (never a connection of its own: ControlMaster=no).
    QStringList commandArguments(const QString &remoteCommand) const;
    // Ends the master (`ssh -O exit`).
    QStringList exitArguments() const;
    // rsync's -e: ssh over the same master.
    QString rsyncShell() const;
    // user@host for rsync's destination (host alone when no user is named).
    QString destination() const;

    // A local path under the session's directory as the host sees it (the same relative path under
    // the remote working directory); other paths unchanged.
    QString remotePath(const QString &localPath) const;
    // The inverse; empty for a path outside the remote working directory.
    QString localPath(const QString &remotePath) const;

    // The shell command that runs program + arguments on the host under the supervisor, in the
    // remote counterpart of workingDirectory, with environment added. keepOnEndOfInput: the program
    // does not read stdin (a fresh run), so the end of our stdin does not end it; a lost
    // connection still does.
    QString remoteCommand(const QString &program, const QStringList &arguments,
                          const QString &workingDirectory, const QProcessEnvironment &environment,
                          bool keepOnEndOfInput) const;
    // Rewrites spec (program, arguments, environment) to run through ssh; the local working
    // directory becomes the session's directory.
    void wrap(ProcessSpec &spec, bool keepOnEndOfInput) const;
    // The same for a worker's QProcess, after setProgram/setArguments/setWorkingDirectory and
    // before Supervisor::wrap: environment is what the worker needs beyond the host's own.
    void wrap(QProcess &process, const QProcessEnvironment &environment) const;

    // What a failed ssh (exit 255, or a master that ended) said, as a message that names the host
    // and the fix. stderrText: ssh's standard error.
    QString describeFailure(const QByteArray &stderrText) const;
    static bool isSshFailure(int exitCode) { return exitCode == 255; }

private:
    QStringList commonOptions() const;

    HostUrl m_url;
    QString m_controlPath;
    QString m_localRoot;
    QString m_remoteWorkdir;
    QString m_python;
};

} // namespace hotkernel
