// SPDX-License-Identifier: Apache-2.0
#include "measure/workerscriptrunner.h"

#include "base/job.h"
#include "base/logging.h"
#include "base/usererror.h"
#include "measure/judgeseedrequest.h"
#include "measure/measuresetup.h"
#include "measure/remotesandbox.h"
#include "measure/workersandbox.h"
#include "process/processgroup.h"
#include "process/processspec.h"
#include "process/supervisor.h"
#include "remote/remoteshell.h"

#include <QCoroFuture>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>

namespace hotkernel {

namespace {
constexpr qsizetype kStderrKeep = 64 * 1024;
// A "line" this long without a newline is not a result line: stop buffering and call it garbage.
constexpr qsizetype kMaxLine = 16 * 1024 * 1024;
} // namespace

WorkerScriptRunner::WorkerScriptRunner(ScriptRunnerOptions options, QObject *parent)
    : QObject(parent), ScriptRunner(std::move(options))
{
    if (m_options.workingDirectory.isEmpty())
        m_options.workingDirectory = QFileInfo(m_options.script).absolutePath();
    if (m_options.displayName.isEmpty())
        m_options.displayName = QFileInfo(m_options.script).fileName();
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        m_timedOut = true;
        wakeUp();
    });
}

WorkerScriptRunner::~WorkerScriptRunner()
{
    QObject::disconnect(m_cancelConnection);
    if (m_process) {
        m_process->disconnect(this);
        killProcessGroup(m_group);
        if (m_process->state() != QProcess::NotRunning) {
            // Reap it later rather than wait here (QProcess's destructor would block until it exits).
            QProcess *process = m_process.release();
            QObject::connect(process, &QProcess::finished, process, &QObject::deleteLater);
        }
    }
}

QString WorkerScriptRunner::commandLine() const
{
    if (m_options.remote)
        return m_options.remote->display() + QStringLiteral(": ") + shellQuote(m_options.python) +
               QLatin1Char(' ') + shellQuote(m_options.remote->remotePath(m_options.script)) +
               QStringLiteral(" --worker");
    return shellQuote(m_options.python) + QLatin1Char(' ') + shellQuote(m_options.script) +
           QStringLiteral(" --worker");
}

QString WorkerScriptRunner::scratchDir() const
{
    return m_sandbox ? m_sandbox->scratch() : QString();
}

QString WorkerScriptRunner::remoteScratchDir() const
{
    return m_remoteSandbox ? m_remoteSandbox->scratch() : QString();
}

QString WorkerScriptRunner::confinement()
{
    if (m_remoteSandbox)
        return m_remoteSandbox->confinement();
    if (!m_sandbox)
        return QStringLiteral("none: the worker was not started");
    return m_sandbox->confinement();
}

FreezableTree WorkerScriptRunner::freezableTree() const
{
    // Here only ssh or srun runs below the supervisor; the worker's tree is on the host.
    if (m_options.remote)
        return {0, QStringLiteral("the worker runs on a remote host, whose supervisor does not freeze yet")};
    if (!isAlive() || m_process->processId() <= 0)
        return {0, QStringLiteral("the worker is not running")};
    return {m_process->processId(), {}};
}

bool WorkerScriptRunner::isAlive() const
{
    return (m_state == State::Starting || m_state == State::Ready) && m_process &&
           m_process->state() != QProcess::NotRunning;
}

void WorkerScriptRunner::setJob(QPointer<Job> job)
{
    QObject::disconnect(m_cancelConnection);
    m_job = job;
    m_cancelled = job && job->isCancelled();
    if (job) {
        // Cancel ends the worker at once, also in the middle of a request.
        m_cancelConnection = connect(job.data(), &Job::cancelRequested, this, [this] {
            m_cancelled = true;
            kill(QStringLiteral("cancelled"));
        });
    }
}

void WorkerScriptRunner::start()
{
    if (m_state != State::NotStarted)
        return;
    m_state = State::Starting;
    m_process = std::make_unique<QProcess>();
    m_process->setProgram(m_options.python);
    m_process->setArguments(QStringList{m_options.script, QStringLiteral("--worker")});
    m_process->setWorkingDirectory(m_options.workingDirectory);
    if (m_options.remote) {
        // ssh runs it there, under the remote supervisor (docs/remote.md), which confines it to a
        // scratch of its own there (issue 41); with the host's tracer, the supervisor streams the
        // witness back. Both marked with a token only it and hotkernel know.
        m_remoteSandbox = std::make_unique<RemoteSandbox>(m_options.remote, false);
        QStringList supervisorOptions = m_remoteSandbox->supervisorOptions();
        QProcessEnvironment environment;
        if (!m_options.witnessTracer.isEmpty()) {
            m_witness = WitnessTrace::streamed();
            m_witness->expectToken(m_remoteSandbox->token());
            environment = WitnessTrace::remoteEnvironment(m_options.witnessTracer);
            supervisorOptions << QStringLiteral("--stream-trace");
        }
        m_options.remote->wrap(*m_process, environment, supervisorOptions);
        Supervisor::wrap(*m_process);
    } else {
        m_sandbox = std::make_unique<WorkerSandbox>(*m_process, m_options.witnessTracer, &m_witness);
    }
    connectProcess();
    qCDebug(lcMeasure) << "starting worker" << commandLine();
    m_process->start();
    if (m_sandbox)
        m_sandbox->started();
    if (m_remoteSandbox) // the supervisor's first line, never the worker's
        m_process->write(m_remoteSandbox->tokenLine());
    if (m_process->processId() > 0)
        m_group = m_process->processId();
}

void WorkerScriptRunner::adopt(SpareHandOff spare)
{
    if (m_state != State::NotStarted || !spare.process)
        return;
    m_state = State::Starting;
    m_fromSpare = true;
    m_process = std::move(spare.process);
    m_group = spare.group;
    m_witness = std::move(spare.witness);
    m_sandbox = std::move(spare.sandbox);
    m_stdoutBuffer = std::move(spare.pendingStdout);
    m_stderrTail = std::move(spare.stderrTail);
    connectProcess();
    // What `python SCRIPT --worker` in the working directory would run (resources/scripts/spare_worker.py).
    const Json become{{"op", "become"},
                      {"script", m_options.script.toStdString()},
                      {"cwd", m_options.workingDirectory.toStdString()},
                      {"argv", Json::array({"--worker"})}};
    qCDebug(lcMeasure) << "a spare worker becomes" << commandLine();
    m_process->write(QByteArray::fromStdString(become.dump()) + '\n');
    readStandardOutput();
    if (m_process->state() == QProcess::NotRunning) {
        m_state = State::Dead;
        m_deathReason = QStringLiteral("the spare worker had ended before it was handed the script");
    }
}

void WorkerScriptRunner::connectProcess()
{
    connect(m_process.get(), &QProcess::readyReadStandardOutput, this,
            &WorkerScriptRunner::readStandardOutput);
    connect(m_process.get(), &QProcess::readyReadStandardError, this, [this] {
        m_stderrTail += m_process->readAllStandardError();
        if (m_stderrTail.size() > kStderrKeep)
            m_stderrTail = m_stderrTail.right(kStderrKeep);
    });
    connect(m_process.get(), &QProcess::started, this, [this] { m_group = m_process->processId(); });
    connect(m_process.get(), &QProcess::finished, this, [this] {
        readStandardOutput();
        m_stderrTail += m_process->readAllStandardError();
        if (!m_stdoutBuffer.trimmed().isEmpty())
            m_lines.push_back(std::exchange(m_stdoutBuffer, {}));
        // The group may still hold grandchildren (compiler workers) that keep GPU memory.
        killProcessGroup(m_group);
        if (m_state != State::Dead) {
            m_state = State::Dead;
            m_deathReason = exitDescription();
        }
        wakeUp();
    });
    connect(m_process.get(), &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            m_state = State::Dead;
            m_deathReason =
                QStringLiteral("could not start %1 (%2)").arg(m_options.python, m_process->errorString());
            wakeUp();
        }
    });
}

void WorkerScriptRunner::readStandardOutput()
{
    if (!m_process)
        return;
    m_stdoutBuffer += m_process->readAllStandardOutput();
    qsizetype newline;
    bool any = false;
    while ((newline = m_stdoutBuffer.indexOf('\n')) >= 0) {
        QByteArray line = m_stdoutBuffer.left(newline);
        m_stdoutBuffer.remove(0, newline + 1);
        if (m_witness && m_witness->takeStreamLine(line))
            continue; // the remote supervisor's witness bytes, ahead of the line they vouch for
        if (m_remoteSandbox && m_remoteSandbox->takeLine(line))
            continue; // its confinement report, before the worker ran
        if (!line.trimmed().isEmpty()) {
            m_lines.push_back(std::move(line));
            any = true;
        }
    }
    if (m_stdoutBuffer.size() > kMaxLine) {
        m_lines.push_back(m_stdoutBuffer.left(200));
        m_stdoutBuffer.clear();
        any = true;
    }
    if (any)
        wakeUp();
}

void WorkerScriptRunner::kill(const QString &why)
{
    if (m_state != State::Dead) {
        m_state = State::Dead;
        m_deathReason = why;
    }
    if (m_process)
        killProcessGroup(m_group > 0 ? m_group : m_process->processId());
    wakeUp();
}

QFuture<void> WorkerScriptRunner::armWake()
{
    QPromise<void> &promise = m_wakes.emplace_back();
    promise.start();
    return promise.future();
}

void WorkerScriptRunner::wakeUp()
{
    for (QPromise<void> &promise : m_wakes)
        promise.finish();
    m_wakes.clear();
}

void WorkerScriptRunner::stop()
{
    kill(QStringLiteral("stopped"));
}

QString WorkerScriptRunner::exitDescription() const
{
    if (!m_process)
        return QStringLiteral("never started");
    if (m_process->exitStatus() == QProcess::CrashExit)
        return QStringLiteral("the worker crashed (killed by a signal)");
    if (m_options.remote && m_options.remote->isTransportFailure(m_process->exitCode(), m_stderrTail))
        return m_options.remote->describeFailure(m_stderrTail);
    return QStringLiteral("the worker exited with code %1").arg(m_process->exitCode());
}

QString WorkerScriptRunner::stderrSuffix() const
{
    const QList<QByteArray> lines = m_stderrTail.trimmed().split('\n');
    if (m_stderrTail.trimmed().isEmpty())
        return {};
    const QList<QByteArray> tail = lines.mid(std::max<qsizetype>(0, lines.size() - 12));
    QStringList text;
    for (const QByteArray &l : tail)
        text.append(QString::fromUtf8(l));
    return QStringLiteral("\nLast lines of its stderr:\n") + text.join(QLatin1Char('\n'));
}

void WorkerScriptRunner::recordSources(const Json &line)
{
    if (!line.is_object() || !line.contains("sources"))
        return;
    const Json &sources = line["sources"];
    if (!sources.is_object()) {
        m_sourcesBroken = QStringLiteral("its \"sources\" field is not an object");
        return;
    }
    for (auto it = sources.begin(); it != sources.end(); ++it) {
        QString path = toQt(it.key());
        if (m_options.remote) {
            // A remote worker names the host's files: those that mirror ours are checked here, the
            // host's own (outside the mirrored directory) cannot be.
            path = m_options.remote->localPath(path);
            if (path.isEmpty())
                continue;
        }
        if (!it.value().is_null() && !it.value().is_string()) {
            m_sourcesBroken = path + QStringLiteral(" has a hash that is neither a string nor null");
            continue;
        }
        // The first report is what the worker loaded; a later one may hash a newer file.
        m_sources.try_emplace(path, it.value().is_string()
                                        ? QByteArray::fromStdString(it.value().get<std::string>()).toLower()
                                        : QByteArray());
    }
}

QString WorkerScriptRunner::staleSource(const std::map<QString, QByteArray> &sources, const QString &broken)
{
    if (!broken.isEmpty())
        return broken;
    return MeasureSetup::changedSource(sources, QStringLiteral(" changed after the worker started (its hash "
                                                               "could not vouch for what it imported)"));
}

QCoro::Task<WorkerScriptRunner::WaitEnd> WorkerScriptRunner::nextLine(QByteArray *line)
{
    m_timedOut = false;
    if (m_options.timeout.count() > 0)
        m_timer.start(m_options.timeout);
    QPointer<WorkerScriptRunner> self(this);
    QFuture<void> woken; // at function scope, as docs/hacking.md asks of locals across co_await
    while (true) {
        if (m_cancelled || (m_job && m_job->isCancelled())) {
            m_timer.stop();
            co_return WaitEnd::Cancelled;
        }
        if (!m_lines.empty()) {
            *line = std::move(m_lines.front());
            m_lines.pop_front();
            m_timer.stop();
            co_return WaitEnd::Line;
        }
        if (m_state == State::Dead || !m_process || m_process->state() == QProcess::NotRunning) {
            // Exited (or killed): wait for QProcess to say so, so that its last output is read.
            if (m_process && m_process->state() != QProcess::NotRunning) {
                woken = armWake();
                co_await woken;
                if (!self)
                    co_return WaitEnd::Exited;
                if (m_timedOut)
                    break;
                continue;
            }
            m_timer.stop();
            co_return WaitEnd::Exited;
        }
        if (m_timedOut)
            break;
        woken = armWake();
        co_await woken;
        if (!self)
            co_return WaitEnd::Exited;
    }
    co_return WaitEnd::TimedOut;
}

QCoro::Task<bool> WorkerScriptRunner::waitReady()
{
    start();
    if (m_state == State::Ready)
        co_return true;
    const QString name = m_options.displayName;
    if (m_state == State::Dead && m_lines.empty())
        throw UserError(QStringLiteral("%1 --worker: %2.%3").arg(name, m_deathReason, stderrSuffix()));
    QByteArray line;
    const QPointer<WorkerScriptRunner> self(this);
    const WaitEnd end = co_await nextLine(&line);
    if (!self)
        throw UserError(
            QStringLiteral("%1 --worker: the worker was discarded before it was ready").arg(name));
    switch (end) {
    case WaitEnd::Cancelled:
        kill(QStringLiteral("cancelled"));
        co_return false;
    case WaitEnd::TimedOut:
        kill(QStringLiteral("timed out"));
        throw UserError(
            QStringLiteral("%1 --worker: not ready within %2 s; its process group was killed. Raise "
                           "--timeout if importing and compiling take that long.%3")
                .arg(name)
                .arg(double(m_options.timeout.count()) / 1000.0)
                .arg(stderrSuffix()));
    case WaitEnd::Exited:
        throw UserError(
            QStringLiteral("%1 --worker: %2 before it was ready.%3")
                .arg(name, m_deathReason.isEmpty() ? exitDescription() : m_deathReason, stderrSuffix()));
    case WaitEnd::Line:
        break;
    }
    QString error;
    auto ready = RunLineParser::parseReady(line, name, &error);
    if (!ready) {
        kill(QStringLiteral("bad ready line"));
        throw UserError(error + stderrSuffix());
    }
    m_ready = std::move(*ready);
    recordSources(m_ready);
    m_state = State::Ready;
    co_return true;
}

QCoro::Task<bool> WorkerScriptRunner::exchange(QByteArray request, QString what, QByteArray *line,
                                               double *wallSeconds, std::optional<LateSeed> lateSeed,
                                               BracketClock *bracket)
{
    const QString name = m_options.displayName;
    if (m_cancelled || (m_job && m_job->isCancelled()))
        co_return false;
    if (m_state != State::Ready || m_busy)
        throw UserError(
            QStringLiteral("%1 %2: the worker is not running (%3); start a new verify.")
                .arg(name, what, m_busy ? QStringLiteral("busy with another request") : m_deathReason));
    m_busy = true;
    // Lines nobody asked for would be taken as this request's answer.
    if (!m_lines.empty()) {
        const QByteArray stray = m_lines.front();
        m_busy = false;
        kill(QStringLiteral("printed an unrequested line"));
        throw UserError(QStringLiteral("%1: the worker printed a line nobody asked for before %2: %3")
                            .arg(name, what, QString::fromUtf8(stray.left(160))));
    }
    QElapsedTimer clock;
    clock.start();
    m_process->write(request);
    QPointer<WorkerScriptRunner> self(this);
    WaitEnd end = co_await nextLine(line);
    if (!self)
        throw UserError(QStringLiteral("%1 %2: the worker was discarded mid-run").arg(name, what));
    // Mid-run lines: the contract asks for a late judge seed (JudgeSeedRequest; answered once) and
    // says when its timed replays are armed and done (BracketClock).
    while (end == WaitEnd::Line) {
        if (lateSeed && JudgeSeedRequest::matches(*line, lateSeed->run)) {
            m_process->write(JudgeSeedRequest::answer(lateSeed->seed));
            lateSeed.reset();
        } else if (const std::optional<QByteArray> reply = bracket ? bracket->take(*line) : std::nullopt) {
            if (!reply->isEmpty())
                m_process->write(*reply);
        } else {
            break;
        }
        end = co_await nextLine(line);
        if (!self)
            throw UserError(QStringLiteral("%1 %2: the worker was discarded mid-run").arg(name, what));
    }
    m_busy = false;
    *wallSeconds = clock.nsecsElapsed() / 1e9;
    switch (end) {
    case WaitEnd::Cancelled:
        kill(QStringLiteral("cancelled"));
        co_return false;
    case WaitEnd::TimedOut:
        kill(QStringLiteral("timed out"));
        throw UserError(
            QStringLiteral("%1 %2: no answer from the worker within %3 s; its process group was "
                           "killed. Raise --timeout if the kernel is that slow, or look for a hang.%4")
                .arg(name, what)
                .arg(double(m_options.timeout.count()) / 1000.0)
                .arg(stderrSuffix()));
    case WaitEnd::Exited:
        throw UserError(QStringLiteral("%1 %2: %3 during the %4.%5")
                            .arg(name, what, m_deathReason.isEmpty() ? exitDescription() : m_deathReason,
                                 what.startsWith(QLatin1String("run")) ? QStringLiteral("run")
                                                                       : QStringLiteral("judge request"),
                                 stderrSuffix()));
    case WaitEnd::Line:
        break;
    }
    co_return true;
}

QCoro::Task<RunOutcome> WorkerScriptRunner::run(int runIndex)
{
    const QString name = m_options.displayName;
    RunOutcome outcome;
    QByteArray request = QByteArray("{\"op\": \"run\", \"run\": ") + QByteArray::number(runIndex);
    // The judge seed is not in the request (issue 19): the contract asks for it once the timed
    // block is captured and timed, when no code of the candidate runs any more, so nothing the
    // candidate does before can depend on it.
    if (m_judgeSeed)
        request += QByteArray(", \"judge_seed\": \"late\"");
    if (!m_judgeDir.isEmpty())
        request +=
            QByteArray(", \"judge_dir\": ") + QByteArray::fromStdString(Json(toStd(m_judgeDir)).dump());
    if (m_eventsTimer)
        request += QByteArray(", \"timer\": \"events\"");
    if (m_bracket)
        request += QByteArray(", \"bracket\": true");
    request += "}\n";
    QByteArray line;
    QPointer<WorkerScriptRunner> self(this);
    std::optional<LateSeed> late;
    if (m_judgeSeed)
        late = LateSeed{runIndex, *m_judgeSeed};
    BracketClock bracket(runIndex);
    if (!co_await exchange(request, QStringLiteral("run %1").arg(runIndex), &line, &outcome.wallSeconds, late,
                           m_bracket ? &bracket : nullptr)) {
        outcome.cancelled = true;
        co_return outcome;
    }
    if (!self)
        throw UserError(
            QStringLiteral("%1 run %2: the worker was discarded mid-run").arg(name).arg(runIndex));
    QString error;
    auto parsed = RunLineParser::parseLine(line, name, runIndex, &error);
    if (!parsed) {
        kill(QStringLiteral("broke the protocol"));
        throw UserError(error + QStringLiteral(" The worker was killed.") + stderrSuffix());
    }
    ++m_runsServed;
    outcome.line = std::move(*parsed);
    outcome.bracketSeconds = bracket.seconds();
    outcome.bracketFault = bracket.fault();
    recordSources(outcome.line.json);
    if (m_witness) {
        outcome.witnessed = true;
        outcome.witness = m_witness->takeNew();
    }
    co_return outcome;
}

QCoro::Task<JudgeOutcome> WorkerScriptRunner::judge(int runIndex, QString file)
{
    const QString name = m_options.displayName;
    JudgeOutcome outcome;
    if (!m_judgeSeed)
        throw UserError(QStringLiteral("%1: a judge request needs the run's judge seed").arg(name));
    const QByteArray request = QByteArray("{\"op\": \"judge\", \"run\": ") + QByteArray::number(runIndex) +
                               QByteArray(", \"judge_seed\": ") + QByteArray::number(*m_judgeSeed) +
                               QByteArray(", \"judge_file\": ") +
                               QByteArray::fromStdString(Json(toStd(file)).dump()) + "}\n";
    QByteArray line;
    QPointer<WorkerScriptRunner> self(this);
    if (!co_await exchange(request, QStringLiteral("judging run %1").arg(runIndex), &line,
                           &outcome.wallSeconds)) {
        outcome.cancelled = true;
        co_return outcome;
    }
    if (!self)
        throw UserError(
            QStringLiteral("%1 judging run %2: the worker was discarded").arg(name).arg(runIndex));
    QString error;
    auto answer = RunLineParser::parseJudgeAnswer(line, name, runIndex, &error);
    if (!answer) {
        kill(QStringLiteral("broke the protocol"));
        throw UserError(error + QStringLiteral(" The worker was killed.") + stderrSuffix());
    }
    outcome.answer = std::move(*answer);
    recordSources(outcome.answer.json);
    co_return outcome;
}

} // namespace hotkernel
