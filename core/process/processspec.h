// SPDX-License-Identifier: Apache-2.0
// What to run and what came back: plain values passed to and from ProcessRunner.
#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>

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
    // When set, stdin stays open after standardInput and each complete stdout line is offered to
    // it as it arrives; what it returns (if anything) is written to stdin. For a child that asks a
    // question mid-run (the contract's late judge seed) instead of reading everything up front.
    std::function<QByteArray(const QByteArray &line)> answerLine;
    // Issue 41: when set, the process may write only beneath these directories and /dev
    // (WriteConfinement); ProcessResult::confinement says what the supervisor achieved.
    QStringList confineWrites;
    // Descriptors (close-on-exec here) the process inherits, such as the witness socket's sending end.
    QList<int> inheritedDescriptors;

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
    // With ProcessSpec::confineWrites: "landlock ABI N" or "none: REASON"; else empty.
    QString confinement;

    bool succeeded() const { return status == Status::Finished && exitCode == 0; }
    // The last lines of stderr, for error messages.
    QString stderrTail(int lines = 12) const;
};

QString shellQuote(const QString &argument);

} // namespace hotkernel
