// SPDX-License-Identifier: Apache-2.0
// A process that may write only beneath its own directories (issue 41): hotkernel-supervise's
// --confine-writes, and the line it reports on a pipe whose read end only hotkernel holds, written
// before the confined program runs, so the program can neither write elsewhere nor forge what the
// report says. One object per started process; lives on the thread that starts it.
#pragma once

#include <QString>
#include <QStringList>

namespace hotkernel {

class WriteConfinement
{
public:
    // writable: absolute directories the process may write beneath (besides /dev, which CUDA's
    // device nodes, /dev/null and /dev/shm need).
    explicit WriteConfinement(QStringList writable);
    ~WriteConfinement();
    WriteConfinement(const WriteConfinement &) = delete;
    WriteConfinement &operator=(const WriteConfinement &) = delete;

    const QStringList &writable() const { return m_writable; }
    // The supervisor's options (--confine-writes=DIR... --confine-report=FD); empty when the
    // report pipe could not be made (the process then runs unconfined and result() says why).
    QStringList supervisorArguments() const;
    // The descriptor the child must inherit (Supervisor::wrap clears its close-on-exec flag there).
    int reportWriteEnd() const { return m_writeEnd; }
    // Call once the process was started (QProcess::start() forks before it returns): closes this
    // process's write end, so the report ends when the child has written it and exec'ed.
    void started();
    // Says that no supervisor will confine the process (the helper is missing): result() is then
    // "none: " + reason.
    void notSupervised(const QString &reason);

    // What the supervisor achieved: "landlock ABI N", or "none: REASON". Call once the program
    // runs (its first line came): the line was written before the exec. Never blocks.
    QString result();
    // True for a result() that names a Landlock ABI.
    static bool confined(const QString &result);

private:
    QStringList m_writable;
    int m_readEnd = -1;
    int m_writeEnd = -1;
    QString m_result;
};

} // namespace hotkernel
