// SPDX-License-Identifier: Apache-2.0
#include "slurm/slurmallocation.h"

#include "base/job.h"
#include "base/usererror.h"
#include "process/processgroup.h"
#include "process/processrunner.h"
#include "process/supervisor.h"

#include <QCoreApplication>
#include <QCoroSignal>
#include <QCoroTimer>
#include <QLoggingCategory>
#include <QMetaEnum>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>

namespace hotkernel {

Q_LOGGING_CATEGORY(lcSlurm, "hotkernel.slurm")

namespace {

const QString keeperTag = QStringLiteral("hotkernel-slurm-job");
// Runs on this machine inside salloc for as long as the allocation is held. Prints what the
// allocation is, then waits for its stdin (a pipe from hotkernel) to close.
const QString keeperScript = QStringLiteral(
    "printf '%s %s %s %s\\n' hotkernel-slurm-job \"$SLURM_JOB_ID\" \"$SLURM_JOB_CPUS_PER_NODE\" "
    "\"$SLURM_JOB_NODELIST\"; exec cat >/dev/null");
constexpr std::chrono::seconds commandTimeout{30};
constexpr qsizetype keptErrorBytes = 64 * 1024;

ProcessSpec slurmCommand(const QString &program, QStringList arguments)
{
    ProcessSpec spec;
    spec.program = program;
    spec.arguments = std::move(arguments);
    spec.timeout = commandTimeout;
    return spec;
}

} // namespace

SlurmAllocation::SlurmAllocation(SlurmHost host, QObject *parent) : QObject(parent), m_host(std::move(host))
{
    m_jobName = QStringLiteral("hotkernel-%1-%2")
                    .arg(QCoreApplication::applicationPid())
                    .arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
}

SlurmAllocation::~SlurmAllocation()
{
    if (m_keeper && m_keeper->state() != QProcess::NotRunning) {
        // Relinquish without waiting: the keeper's end of file makes salloc give the allocation back;
        // scancel covers a salloc that is still waiting in the queue or does not react.
        m_keeper->closeWriteChannel();
        scancelDetached();
        QProcess *keeper = m_keeper.release();
        keeper->disconnect(this);
        QObject::connect(keeper, &QProcess::finished, keeper, &QObject::deleteLater);
    }
    // Wake an acquire() or release() still waiting on this object: they see it is over.
    m_state = State::Released;
    Q_EMIT stateChanged(m_state);
}

void SlurmAllocation::setState(State state)
{
    if (m_state == state)
        return;
    qCDebug(lcSlurm) << m_jobName << m_jobId << "state" << state;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void SlurmAllocation::progress(const QString &message)
{
    if (message == m_lastProgress)
        return;
    m_lastProgress = message;
    Q_EMIT progressChanged(message);
}

QCoro::Task<bool> SlurmAllocation::acquire(Job *job)
{
    if (m_state != State::NotStarted)
        throw UserError(
            QStringLiteral("This Slurm allocation (%1) was already taken once; make a new one for %2")
                .arg(m_jobName, m_host.toUrl()));
    QPointer<SlurmAllocation> self(this);
    QPointer<Job> jobAlive(job);
    QMetaObject::Connection cancelConnection;
    QMetaObject::Connection progressConnection;
    if (job) {
        if (job->isCancelled()) {
            setState(State::Cancelled);
            co_return false;
        }
        cancelConnection = connect(job, &Job::cancelRequested, this, &SlurmAllocation::cancel);
        progressConnection =
            connect(this, &SlurmAllocation::progressChanged, job,
                    [job](const QString &message) { job->setProgress(0, std::nullopt, message); });
    }
    startKeeper();
    if (m_state == State::Pending)
        pollWhilePending(); // runs on its own until the job leaves the queue
    while (m_state == State::Pending) {
        co_await qCoro(this, &SlurmAllocation::stateChanged);
        if (!self)
            co_return false;
    }
    disconnect(cancelConnection);
    disconnect(progressConnection);
    switch (m_state) {
    case State::Running:
        co_return true;
    case State::Failed:
        throw UserError(m_error);
    case State::Ended:
        throw UserError(m_error, UserError::Kind::HostEnded);
    default: // cancelled, released, or destroyed while waiting
        co_return false;
    }
}

void SlurmAllocation::startKeeper()
{
    m_keeper = std::make_unique<QProcess>();
    QStringList arguments{QStringLiteral("--job-name=") + m_jobName, QStringLiteral("--nodes=1"),
                          QStringLiteral("--ntasks=1"),
                          // End the keeper (and so salloc) the moment Slurm revokes the allocation.
                          QStringLiteral("--kill-command=TERM")};
    arguments += m_host.allocationArguments();
    arguments << QStringLiteral("--") << QStringLiteral("/bin/sh") << QStringLiteral("-c") << keeperScript;
    m_keeper->setProgram(QStringLiteral("salloc"));
    m_keeper->setArguments(arguments);
    Supervisor::wrap(*m_keeper);
    connect(m_keeper.get(), &QProcess::readyReadStandardOutput, this, &SlurmAllocation::readKeeperOutput);
    connect(m_keeper.get(), &QProcess::readyReadStandardError, this, &SlurmAllocation::readKeeperError);
    connect(m_keeper.get(), &QProcess::started, this, [this] { m_keeperPid = m_keeper->processId(); });
    connect(m_keeper.get(), &QProcess::finished, this, [this] { keeperExited(); });
    connect(m_keeper.get(), &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && m_state == State::Pending) {
            m_error =
                QStringLiteral("Cannot start salloc (%1): a slurm:// host needs Slurm's client commands "
                               "(salloc, srun, squeue, scancel) on PATH here, e.g. on the cluster's login "
                               "node.")
                    .arg(m_keeper->errorString());
            setState(State::Failed);
        }
    });
    qCInfo(lcSlurm).noquote() << "taking an allocation:"
                              << QStringLiteral("salloc ") + arguments.join(QLatin1Char(' '));
    setState(State::Pending);
    progress(QStringLiteral("asking Slurm for an allocation in %1").arg(m_host.describePartition()));
    m_keeper->start();
}

void SlurmAllocation::readKeeperOutput()
{
    m_keeperOutput += m_keeper->readAllStandardOutput();
    qsizetype newline;
    while ((newline = m_keeperOutput.indexOf('\n')) >= 0) {
        const QString line = QString::fromUtf8(m_keeperOutput.left(newline)).trimmed();
        m_keeperOutput.remove(0, newline + 1);
        const QStringList fields = line.split(QLatin1Char(' '));
        if (fields.size() < 2 || fields[0] != keeperTag || m_state != State::Pending)
            continue;
        m_jobId = fields[1];
        // SLURM_JOB_CPUS_PER_NODE reads "4" or "4(x2)"; one node here, so its leading number.
        static const QRegularExpression leadingNumber(QStringLiteral("^(\\d+)"));
        const QRegularExpressionMatch cpus = leadingNumber.match(fields.value(2));
        m_cpus = cpus.hasMatch() ? cpus.captured(1).toInt() : 0;
        m_nodes = fields.value(3);
        qCInfo(lcSlurm).noquote() << "job" << m_jobId << "runs on" << m_nodes << "with" << m_cpus << "CPUs";
        progress(QStringLiteral("Slurm job %1 runs on %2").arg(m_jobId, m_nodes));
        setState(State::Running);
    }
}

void SlurmAllocation::readKeeperError()
{
    const QByteArray chunk = m_keeper->readAllStandardError();
    m_keeperError += chunk;
    if (m_keeperError.size() > keptErrorBytes)
        m_keeperError.remove(0, m_keeperError.size() - keptErrorBytes);
    // "salloc: Pending job allocation 12", "salloc: Granted job allocation 12": the id, early.
    static const QRegularExpression allocation(QStringLiteral("job allocation (\\d+)"));
    const QRegularExpressionMatch match = allocation.match(QString::fromUtf8(chunk));
    if (match.hasMatch() && m_jobId.isEmpty())
        m_jobId = match.captured(1);
    qCDebug(lcSlurm).noquote() << QString::fromUtf8(chunk).trimmed();
}

QCoro::Task<> SlurmAllocation::pollWhilePending()
{
    QPointer<SlurmAllocation> self(this);
    while (self && m_state == State::Pending) {
        const std::optional<SlurmJobStatus> status = co_await queryStatus();
        if (!self || m_state != State::Pending)
            co_return;
        if (status && status->isPending()) {
            if (m_jobId.isEmpty())
                m_jobId = status->jobId;
            progress(QStringLiteral("Slurm job %1 waits in the queue of %2 (%3)")
                         .arg(status->jobId, m_host.describePartition(), status->reason));
        }
        co_await QCoro::sleepFor(m_pollInterval);
    }
}

QCoro::Task<std::optional<SlurmJobStatus>> SlurmAllocation::queryStatus()
{
    QStringList arguments{QStringLiteral("--noheader"), QStringLiteral("--states=all"),
                          QStringLiteral("--format=") + SlurmJobStatus::squeueFormat()};
    // By id once known (squeue --name also lists older jobs of the same name, which ours is not).
    arguments << (m_jobId.isEmpty() ? QStringLiteral("--name=") + m_jobName
                                    : QStringLiteral("--jobs=") + m_jobId);
    const QString jobId = m_jobId;
    QPointer<SlurmAllocation> self(this);
    const ProcessResult result =
        co_await ProcessRunner::run(slurmCommand(QStringLiteral("squeue"), arguments));
    if (!self)
        co_return std::nullopt;
    if (!result.succeeded()) {
        // A job Slurm has forgotten ("Invalid job id specified") is an answer too: it is gone.
        qCDebug(lcSlurm).noquote() << "squeue:" << result.stderrTail(3);
        co_return std::nullopt;
    }
    const QStringList lines =
        QString::fromUtf8(result.standardOutput).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString &line : lines) {
        std::optional<SlurmJobStatus> status = SlurmJobStatus::parseLine(line);
        if (status && (jobId.isEmpty() || status->jobId == jobId))
            co_return status;
    }
    co_return std::nullopt;
}

QCoro::Task<std::optional<SlurmJobStatus>> SlurmAllocation::finalStatus()
{
    QPointer<SlurmAllocation> self(this);
    std::optional<SlurmJobStatus> status;
    // A job stays COMPLETING until its processes are gone (up to the cluster's KillWait, 30 s by
    // default); its final state says why it ended.
    for (int attempt = 0; attempt < 90; ++attempt) {
        status = co_await queryStatus();
        if (!self)
            co_return std::nullopt;
        if (!status || !status->isActive())
            break;
        co_await QCoro::sleepFor(std::chrono::milliseconds(500));
        if (!self)
            co_return std::nullopt;
    }
    if (!status) {
        // Purged from the controller's memory: accounting may still know (sacct needs slurmdbd).
        // (A named list: GCC 12 rejects a braced list inside a co_await expression.)
        const QStringList arguments{QStringLiteral("--jobs=") + m_jobId, QStringLiteral("-X"),
                                    QStringLiteral("--noheader"), QStringLiteral("--parsable2"),
                                    QStringLiteral("--format=JobID,State,Reason,Timelimit,NodeList")};
        const ProcessResult sacct =
            co_await ProcessRunner::run(slurmCommand(QStringLiteral("sacct"), arguments));
        if (!self)
            co_return std::nullopt;
        if (sacct.succeeded()) {
            const QString first = QString::fromUtf8(sacct.standardOutput).section(QLatin1Char('\n'), 0, 0);
            status = SlurmJobStatus::parseLine(first);
            // sacct writes "CANCELLED by 0".
            if (status)
                status->state = status->state.section(QLatin1Char(' '), 0, 0);
        }
    }
    co_return status;
}

QCoro::Task<> SlurmAllocation::keeperExited()
{
    QPointer<SlurmAllocation> self(this);
    if (m_keeperPid > 0)
        killProcessGroup(m_keeperPid); // whatever the keeper left
    readKeeperOutput();
    if (m_state == State::Pending) {
        m_error = sallocFailure();
        qCWarning(lcSlurm).noquote() << m_error;
        setState(State::Failed);
        co_return;
    }
    if (m_state != State::Running)
        co_return; // released or cancelled: expected
    qCInfo(lcSlurm).noquote() << "salloc of job" << m_jobId << "exited; asking Slurm why";
    progress(QStringLiteral("Slurm job %1 ended; asking Slurm why").arg(m_jobId));
    std::optional<SlurmJobStatus> status = co_await finalStatus();
    if (!self || m_state != State::Running)
        co_return;
    if (!status) {
        status = SlurmJobStatus{};
        status->jobId = m_jobId;
    }
    m_error = status->describeEnd(m_host);
    qCWarning(lcSlurm).noquote() << m_error;
    setState(State::Ended);
    Q_EMIT ended(m_error);
}

QString SlurmAllocation::sallocFailure() const
{
    QByteArray standardError = m_keeperError;
    if (const std::optional<QString> startFailure =
            Supervisor::startFailure(m_keeper->exitCode(), standardError))
        return QStringLiteral(
                   "Cannot start salloc (%1): a slurm:// host needs Slurm's client commands (salloc, "
                   "srun, squeue, scancel) on PATH here, e.g. on the cluster's login node.")
            .arg(*startFailure);
    QStringList errors;
    const QStringList lines = QString::fromUtf8(standardError).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString &line : lines) {
        if (line.contains(QLatin1String("error"), Qt::CaseInsensitive))
            errors << line.trimmed();
    }
    if (errors.isEmpty())
        errors = lines.mid(std::max<qsizetype>(0, lines.size() - 3));
    return QStringLiteral(
               "Slurm did not grant an allocation in %1 for %2 (salloc exited with status %3): %4. "
               "Check the host's partition and options: `sinfo --summarize` lists the partitions, "
               "`salloc --test-only %5` tries the same request.")
        // One arg() call: a chain would read a '%' in the URL or in salloc's words as a placeholder.
        .arg(m_host.describePartition(), m_host.toUrl(), QString::number(m_keeper->exitCode()),
             errors.isEmpty() ? QStringLiteral("it said nothing") : errors.join(QLatin1String("; ")),
             m_host.allocationArguments().join(QLatin1Char(' ')));
}

QStringList SlurmAllocation::stepArguments(const QString &workingDirectory) const
{
    // One task on the allocation's one node. --overlap lets steps run side by side on the same
    // CPUs and GPUs (both workers of a verify, a profiler beside them); without it the second step
    // would wait for the first to end. A step gets all of the job's GRES by default, so every step
    // sees the same GPU, which the workers' shared judge needs.
    QStringList arguments{QStringLiteral("--jobid=") + m_jobId,
                          QStringLiteral("--overlap"),
                          QStringLiteral("--nodes=1"),
                          QStringLiteral("--ntasks=1"),
                          QStringLiteral("--mpi=none"),
                          QStringLiteral("--quiet"),
                          QStringLiteral("--job-name=") + m_jobName};
    if (m_cpus > 0)
        arguments << QStringLiteral("--cpus-per-task=%1").arg(m_cpus); // all of them, not srun's default 1
    if (!workingDirectory.isEmpty())
        arguments << QStringLiteral("--chdir=") + workingDirectory;
    return arguments;
}

ProcessSpec SlurmAllocation::wrap(const ProcessSpec &spec) const
{
    if (m_state != State::Running) {
        throw UserError(
            m_error.isEmpty()
                ? QStringLiteral("No Slurm allocation is running for %1 (it is %2); take one first")
                      .arg(m_host.toUrl(), QString::fromLatin1(QMetaEnum::fromType<State>().valueToKey(
                                               static_cast<int>(m_state))))
                : m_error,
            m_state == State::Ended ? UserError::Kind::HostEnded : UserError::Kind::General);
    }
    ProcessSpec wrapped = spec;
    wrapped.program = QStringLiteral("srun");
    wrapped.arguments = stepArguments(spec.workingDirectory);
    wrapped.arguments << QStringLiteral("--") << spec.program;
    wrapped.arguments += spec.arguments;
    return wrapped;
}

QCoro::Task<QString> SlurmAllocation::checkEnded(bool ending)
{
    QPointer<SlurmAllocation> self(this);
    if (m_state != State::Running)
        co_return m_error;
    const std::optional<SlurmJobStatus> status = co_await queryStatus();
    if (!self)
        co_return QString();
    if (!ending && m_state == State::Running && status && status->isRunning())
        co_return QString();
    // Ending: salloc's exit brings the final word (keeperExited()); give it time to arrive.
    while (m_state == State::Running) {
        const auto changed = co_await qCoro(this, &SlurmAllocation::stateChanged, std::chrono::seconds(60));
        if (!self)
            co_return QString();
        if (!changed)
            break;
    }
    co_return m_error;
}

QCoro::Task<> SlurmAllocation::scancel()
{
    QStringList arguments;
    if (m_jobId.isEmpty())
        arguments << QStringLiteral("--name=") + m_jobName;
    else
        arguments << m_jobId;
    const ProcessResult result =
        co_await ProcessRunner::run(slurmCommand(QStringLiteral("scancel"), arguments));
    if (!result.succeeded())
        qCWarning(lcSlurm).noquote() << "scancel" << arguments.join(QLatin1Char(' '))
                                     << "failed:" << result.stderrTail(3);
}

void SlurmAllocation::scancelDetached()
{
    // Only where nothing may wait (the destructor, a cancel): a short command on its own.
    QProcess::startDetached(QStringLiteral("scancel"),
                            {m_jobId.isEmpty() ? QStringLiteral("--name=") + m_jobName : m_jobId});
}

void SlurmAllocation::cancel()
{
    switch (m_state) {
    case State::NotStarted:
        setState(State::Cancelled);
        break;
    case State::Pending:
        qCInfo(lcSlurm).noquote() << "cancelling the request" << m_jobName << m_jobId;
        setState(State::Cancelled);
        // salloc revokes a pending request on SIGTERM; scancel covers a grant racing with it.
        scancelDetached();
        if (m_keeper)
            killProcessGroup(*m_keeper);
        break;
    case State::Running:
    case State::Ended:
        release();
        break;
    default:
        break;
    }
}

QCoro::Task<> SlurmAllocation::release()
{
    QPointer<SlurmAllocation> self(this);
    if (m_state == State::Releasing) {
        while (self && m_state == State::Releasing)
            co_await qCoro(this, &SlurmAllocation::stateChanged);
        co_return;
    }
    if (m_state == State::Released)
        co_return;
    if (m_state == State::Pending)
        cancel();
    const bool hadJob = m_state != State::NotStarted && m_state != State::Failed;
    setState(State::Releasing);
    if (m_keeper && m_keeper->state() != QProcess::NotRunning) {
        progress(QStringLiteral("releasing Slurm job %1").arg(m_jobId));
        // The keeper's end of file: salloc relinquishes the allocation and exits.
        m_keeper->closeWriteChannel();
        co_await qCoro(m_keeper.get(), &QProcess::finished, std::chrono::seconds(10));
        if (!self)
            co_return;
        if (m_keeper->state() != QProcess::NotRunning) {
            co_await scancel();
            if (!self)
                co_return;
            if (m_keeper->state() != QProcess::NotRunning)
                co_await qCoro(m_keeper.get(), &QProcess::finished, std::chrono::seconds(10));
            if (!self)
                co_return;
            if (m_keeper->state() != QProcess::NotRunning)
                killProcessGroup(*m_keeper);
        }
    }
    // Slurm's side: nothing of ours may stay queued, running or completing (a job completes once
    // its steps' processes are gone, within the cluster's KillWait).
    for (int attempt = 0; hadJob && attempt < 120; ++attempt) {
        const std::optional<SlurmJobStatus> status = co_await queryStatus();
        if (!self)
            co_return;
        if (!status || !status->isActive())
            break;
        if (status->state != QLatin1String("COMPLETING") && (attempt == 0 || attempt == 20))
            co_await scancel();
        else
            co_await QCoro::sleepFor(std::chrono::milliseconds(500));
        if (!self)
            co_return;
    }
    qCInfo(lcSlurm).noquote() << "released" << m_jobName << m_jobId;
    setState(State::Released);
}

} // namespace hotkernel
