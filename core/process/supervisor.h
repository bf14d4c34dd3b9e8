// SPDX-License-Identifier: Apache-2.0
// Starts a job's child processes under hotkernel-supervise (core/native/supervise.cpp), which keeps
// their whole subtree below it (a `setsid` grandchild included) and ends it on cancel, on timeout
// and when this process exits in any way, kill -9 included (issue 18). Any thread.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

class QProcess;

namespace hotkernel {

class WriteConfinement;

class Supervisor
{
public:
    static QString helperFileName(); // hotkernel-supervise
    // Absolute path of the helper, or empty when it is not installed beside hotkernel.
    static QString helperPath();

    // Call after setProgram()/setArguments() and before start(): the process starts as
    // `hotkernel-supervise --lifeline=FD -- PROGRAM ARGS...`, leading a process group of its own;
    // its stdin, stdout and stderr reach PROGRAM unchanged. Without the helper PROGRAM starts
    // directly in a group of its own, as before, and a warning says once that a descendant which
    // calls setsid can then escape.
    static void wrap(QProcess &process);
    // The same, and (issue 41) PROGRAM may write only where `confinement` allows (null: anywhere);
    // `inherited` are descriptors (close-on-exec here) that the supervisor and PROGRAM keep, such
    // as the sending end of the witness socket. Without the helper, confinement->result() says that
    // PROGRAM ran unconfined.
    static void wrap(QProcess &process, WriteConfinement *confinement, QList<int> inherited = {});

    // True while pid is a supervisor (its command name in /proc): ending its tree is then a
    // SIGTERM to it alone, since SIGKILL would leave it no chance to end what escaped the group.
    static bool isSupervisor(long long pid);

    // When a supervised process exited because PROGRAM could not start (exit code 127 and the
    // helper's line on stderr): that reason, with the line taken out of standardError.
    static std::optional<QString> startFailure(int exitCode, QByteArray &standardError);

    // The read end of the pipe whose write end only this process holds; -1 when it cannot be made.
    static int lifelineFd();
};

} // namespace hotkernel
