// SPDX-License-Identifier: Apache-2.0
// How a command reaches the session's host (issue 24): the program here that carries a shell
// command there (ssh through the session's master, or srun as a step of its Slurm allocation), the
// remote working directory that mirrors the session's, and the wrapping that makes a local
// ProcessSpec or worker QProcess run there under the remote supervisor we ship (resources/remote/).
// Everything above it (workers, probes, copies, the judge's files) is the same for both kinds.
// A value; pure except for reading the environment and removeLater(). Any thread (removeLater():
// one with an event loop).
#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

class QProcess;

namespace hotkernel {

struct ProcessSpec;

class RemoteShell
{
public:
    virtual ~RemoteShell() = default;

    // The host as the user wrote it, for messages and records.
    virtual QString display() const = 0;
    // The program here, and its arguments, that run shellCommand (POSIX sh) on the host with its
    // stdin, stdout and stderr passed through.
    virtual QString program() const = 0;
    virtual QStringList commandArguments(const QString &shellCommand) const = 0;
    // A command that exited with exitCode after printing stderrText failed on the way there or back
    // (a lost connection, an allocation that ended), not on its own.
    virtual bool isTransportFailure(int exitCode, const QByteArray &stderrText) const = 0;
    // That failure as a message naming the host, what happened and what to do.
    virtual QString describeFailure(const QByteArray &stderrText) const = 0;

    const QString &localRoot() const { return m_localRoot; }
    // Known once connected: the remote working directory (absolute) and the interpreter there.
    void setRemoteWorkdir(const QString &dir) { m_remoteWorkdir = dir; }
    const QString &remoteWorkdir() const { return m_remoteWorkdir; }
    void setRemotePython(const QString &python) { m_python = python; }
    QString remotePython() const;
    QString supervisorPath() const; // <workdir>/.hotkernel/hotkernel-remote-supervise.py

    // A local path under the session's directory as the host sees it (the same relative path under
    // the remote working directory); other paths unchanged.
    QString remotePath(const QString &localPath) const;
    // The inverse; empty for a path outside the remote working directory, and for one in its
    // .hotkernel/ (hotkernel's own folder there: the supervisor, the workers' scratches with their
    // compiler caches, the judge's folders), which mirrors nothing here.
    QString localPath(const QString &remotePath) const;

    // The shell command that runs program + arguments on the host under the supervisor, in the
    // remote counterpart of workingDirectory, with environment added. keepOnEndOfInput: the program
    // does not read stdin (a fresh run), so the end of our stdin does not end it; a lost
    // connection still does.
    // supervisorOptions: more of the supervisor's options, such as --stream-trace (the GPU witness
    // there; WitnessTrace::streamed) or --confine-scratch (issue 41; RemoteSandbox).
    QString remoteCommand(const QString &program, const QStringList &arguments,
                          const QString &workingDirectory, const QProcessEnvironment &environment,
                          bool keepOnEndOfInput, const QStringList &supervisorOptions = {}) const;
    // Rewrites spec (program, arguments, environment) to run on the host; the local working
    // directory becomes the session's directory.
    void wrap(ProcessSpec &spec, bool keepOnEndOfInput, const QStringList &supervisorOptions = {}) const;
    // The same for a worker's QProcess, after setProgram/setArguments/setWorkingDirectory and
    // before Supervisor::wrap: environment is what the worker needs beyond the host's own.
    void wrap(QProcess &process, const QProcessEnvironment &environment,
              const QStringList &supervisorOptions = {}) const;
    // Removes a path on the host (rm -rf) without waiting: a private folder a job left, or a
    // runner's scratch there.
    void removeLater(const QString &remotePath) const;

protected:
    // configuredPython: the host URL's ?python=, empty for python3 on the remote PATH.
    RemoteShell(QString localRoot, QString configuredPython);

private:
    QString m_localRoot;
    QString m_configuredPython;
    QString m_remoteWorkdir;
    QString m_python;
};

} // namespace hotkernel
