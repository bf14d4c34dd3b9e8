// SPDX-License-Identifier: Apache-2.0
#include "process/processrunner.h"

#include "base/job.h"
#include "base/logging.h"
#include "process/processgroup.h"
#include "process/supervisor.h"
#include "process/writeconfinement.h"

#include <QCoroFuture>
#include <QCoroSignal>
#include <QElapsedTimer>
#include <QProcess>
#include <QPromise>
#include <QTimer>

#include <memory>

namespace hotkernel {

QCoro::Task<ProcessResult> ProcessRunner::run(ProcessSpec spec, Job *job)
{
    ProcessResult result;
    if (job && job->isCancelled()) {
        result.status = ProcessResult::Status::Cancelled;
        co_return result;
    }

    auto process = std::make_unique<QProcess>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &key : spec.extraEnvironment.keys())
        env.insert(key, spec.extraEnvironment.value(key));
    process->setProcessEnvironment(env);
    if (!spec.workingDirectory.isEmpty())
        process->setWorkingDirectory(spec.workingDirectory);
    process->setProgram(spec.program);
    process->setArguments(spec.arguments);
    std::unique_ptr<WriteConfinement> confinement;
    if (!spec.confineWrites.isEmpty())
        confinement = std::make_unique<WriteConfinement>(spec.confineWrites);
    Supervisor::wrap(*process, confinement.get(), spec.inheritedDescriptors);

    // Read as we go so a chatty child never blocks on a full pipe.
    qsizetype answeredUpTo = 0; // stdout before this offset has been offered to spec.answerLine
    QObject::connect(process.get(), &QProcess::readyReadStandardOutput, process.get(),
                     [&result, &spec, &answeredUpTo, p = process.get()] {
                         result.standardOutput += p->readAllStandardOutput();
                         if (!spec.answerLine)
                             return;
                         qsizetype end;
                         while ((end = result.standardOutput.indexOf('\n', answeredUpTo)) >= 0) {
                             const QByteArray answer =
                                 spec.answerLine(result.standardOutput.mid(answeredUpTo, end - answeredUpTo));
                             answeredUpTo = end + 1;
                             if (!answer.isEmpty())
                                 p->write(answer);
                         }
                     });
    QObject::connect(process.get(), &QProcess::readyReadStandardError, process.get(),
                     [&result, p = process.get()] { result.standardError += p->readAllStandardError(); });

    bool timedOut = false;
    bool cancelled = false;
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, process.get(), [&timedOut, p = process.get()] {
        timedOut = true;
        killProcessGroup(*p);
    });
    QMetaObject::Connection cancelConnection;
    if (job) {
        cancelConnection =
            QObject::connect(job, &Job::cancelRequested, process.get(), [&cancelled, p = process.get()] {
                cancelled = true;
                killProcessGroup(*p);
            });
    }

    qCDebug(lcProcess) << "starting" << spec.commandLine();
    QElapsedTimer clock;
    clock.start();
    process->start();
    if (confinement)
        confinement->started();
    // errorOccurred(FailedToStart) or started(), whichever comes first.
    bool failedToStart = false;
    QObject::connect(process.get(), &QProcess::errorOccurred, process.get(),
                     [&failedToStart](QProcess::ProcessError e) {
                         if (e == QProcess::FailedToStart)
                             failedToStart = true;
                     });
    // Not qCoro(process, &QProcess::stateChanged): QCoro 0.8 binds the signal's QPrivateSignal tag,
    // which Qt passes as a null pointer, to a reference (undefined behaviour, UBSan reports it).
    QPromise<void> leftStarting;
    leftStarting.start();
    QFuture<void> startedOrFailed = leftStarting.future();
    const QMetaObject::Connection leaving = QObject::connect(
        process.get(), &QProcess::stateChanged, process.get(), [&leftStarting](QProcess::ProcessState state) {
            if (state != QProcess::Starting)
                leftStarting.finish();
        });
    if (process->state() != QProcess::Starting)
        leftStarting.finish();
    co_await startedOrFailed;
    QObject::disconnect(leaving); // the promise goes before the process
    if (failedToStart || process->state() == QProcess::NotRunning) {
        if (failedToStart || process->error() == QProcess::FailedToStart) {
            result.status = ProcessResult::Status::FailedToStart;
            result.errorString = process->errorString();
            co_return result;
        }
    }

    const qint64 groupId = process->processId();
    if (!spec.standardInput.isEmpty())
        process->write(spec.standardInput);
    if (!spec.answerLine)
        process->closeWriteChannel();

    if (spec.timeout.count() > 0)
        timeout.start(spec.timeout);
    if (process->state() != QProcess::NotRunning)
        co_await qCoro(process.get(), &QProcess::finished);
    timeout.stop();
    // A killed group can leave grandchildren holding the pipes; make sure they are gone too.
    killProcessGroup(groupId);
    QObject::disconnect(cancelConnection);

    result.standardOutput += process->readAllStandardOutput();
    result.standardError += process->readAllStandardError();
    result.wallSeconds = clock.nsecsElapsed() / 1e9;
    result.exitCode = process->exitCode();
    if (confinement) // the process ran (or failed to exec): the supervisor's line is written
        result.confinement = confinement->result();
    std::optional<QString> startFailure;
    if (process->exitStatus() == QProcess::NormalExit)
        startFailure = Supervisor::startFailure(result.exitCode, result.standardError);
    if (cancelled) {
        result.status = ProcessResult::Status::Cancelled;
    } else if (startFailure) {
        result.status = ProcessResult::Status::FailedToStart;
        result.errorString = *startFailure;
    } else if (timedOut) {
        result.status = ProcessResult::Status::TimedOut;
    } else if (process->exitStatus() == QProcess::CrashExit) {
        result.status = ProcessResult::Status::Crashed;
    } else {
        result.status = ProcessResult::Status::Finished;
    }
    co_return result;
}

} // namespace hotkernel
