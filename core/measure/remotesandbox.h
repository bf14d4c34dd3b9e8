// SPDX-License-Identifier: Apache-2.0
// How a worker on a remote host starts (issue 41), as WorkerSandbox does here: the remote supervisor
// (resources/remote/hotkernel-remote-supervise.py) makes its private scratch there, with the folders
// WorkerScratch names in its environment, lets it write only beneath that and /dev with Landlock,
// and says what it achieved on stdout before the worker runs, in a line marked with a token that
// only the supervisor and hotkernel know (the first line of the supervisor's stdin, as for the
// witness stream). One per worker, or per runner of processes per run, whose runs share its
// scratch. Lives on the thread of its runner.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <memory>

namespace hotkernel {

class RemoteShell;

class RemoteSandbox
{
public:
    // keepScratch: the scratch outlives each process (a process per run, whose next run uses it
    // again) and goes when this object does; otherwise the supervisor removes it when its process ends.
    RemoteSandbox(std::shared_ptr<const RemoteShell> shell, bool keepScratch);
    ~RemoteSandbox();
    RemoteSandbox(const RemoteSandbox &) = delete;
    RemoteSandbox &operator=(const RemoteSandbox &) = delete;

    // The scratch's path on the host: <workdir>/.hotkernel/worker-<random>. Verify makes the
    // candidate's judge folder inside it, the one place the confined candidate may write.
    const QString &scratch() const { return m_scratch; }
    // The supervisor's options that make the scratch and confine the process to it.
    QStringList supervisorOptions() const;
    // What the supervisor's marked lines carry (WitnessTrace::expectToken takes the same one).
    const QByteArray &token() const { return m_token; }
    // The first line to write to the supervisor's stdin, before anything meant for the worker.
    QByteArray tokenLine() const { return m_token + '\n'; }

    // A worker's stdout line: true when it is the supervisor's report (kept for confinement()) or
    // one posing as it without the token (dropped: the worker forged it); false for any other line.
    bool takeLine(const QByteArray &line);
    // A whole output (a process per run): the supervisor's report taken out of *output, and what
    // it said ("none: ..." when it said nothing).
    static QString takeReport(QByteArray *output, const QByteArray &token);
    // "landlock ABI N" or "none: REASON". Call once the worker runs (its first line came): the
    // supervisor writes its line before the worker can print one.
    QString confinement() const;

private:
    // The report a line carries: empty when the line is not one; "none: ..." for a forged one.
    static QString report(const QByteArray &line, const QByteArray &token, bool *forged);

    std::shared_ptr<const RemoteShell> m_shell;
    QString m_scratch;
    QByteArray m_token;
    bool m_keepScratch;
    QString m_result;
};

} // namespace hotkernel
