// SPDX-License-Identifier: Apache-2.0
// What to run and what came back: plain values passed to and from ProcessRunner.
#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <chrono>

namespace hotkernel {

struct ProcessSpec
{
    QString program;
    QStringList arguments;
    QString workingDirectory;
    // Added to (or overriding) the parent's environment.
    QProcessEnvironment extraEnvironment;
    std::chrono::milliseconds timeout{std::chrono::minutes(10)};
    QByteArray standardInput;

    QString commandLine() const; // shell-quoted, for logs and results
};

struct ProcessResult
{
    enum class Status { Finished, FailedToStart, TimedOut, Cancelled, Crashed };
    Status status = Status::FailedToStart;
    int exitCode = -1;
    QByteArray standardOutput;
    QByteArray standardError;
    QString errorString; // why it failed to start, when it did
    double wallSeconds = 0;

    bool succeeded() const { return status == Status::Finished && exitCode == 0; }
    // The last lines of stderr, for error messages.
    QString stderrTail(int lines = 12) const;
};

QString shellQuote(const QString &argument);

} // namespace hotkernel
