// SPDX-License-Identifier: Apache-2.0
#include "measure/processperrunrunner.h"

#include "measure/bracketclock.h"

#include "base/job.h"
#include "base/usererror.h"
#include "measure/remotesandbox.h"
#include "measure/workerscratch.h"
#include "process/processrunner.h"
#include "process/writeconfinement.h"
#include "remote/remoteshell.h"

#include <QFileInfo>

namespace hotkernel {

ProcessPerRunRunner::ProcessPerRunRunner(ScriptRunnerOptions options, OutputParser parser, Wording wording)
    : ScriptRunner(std::move(options)), m_parser(parser), m_wording(std::move(wording))
{
    if (m_options.workingDirectory.isEmpty())
        m_options.workingDirectory = QFileInfo(m_options.script).absolutePath();
    if (m_options.displayName.isEmpty())
        m_options.displayName = QFileInfo(m_options.script).fileName();
    if (!m_options.remote)
        m_scratch = std::make_shared<WorkerScratch>();
    else // the runs share one scratch there, removed with this runner
        m_remoteSandbox = std::make_unique<RemoteSandbox>(m_options.remote, true);
}

ProcessPerRunRunner::~ProcessPerRunRunner() = default;

QString ProcessPerRunRunner::scratchDir() const
{
    return m_scratch ? m_scratch->path() : QString();
}

QString ProcessPerRunRunner::remoteScratchDir() const
{
    return m_remoteSandbox ? m_remoteSandbox->scratch() : QString();
}

QString ProcessPerRunRunner::confinement()
{
    if (m_scratch && !m_scratch->isValid())
        return QStringLiteral("none: ") + m_scratch->error();
    return m_confinement->isEmpty() ? QStringLiteral("none: no run has started") : *m_confinement;
}

ProcessPerRunRunner::Sandbox ProcessPerRunRunner::sandbox(const WitnessTrace *witness) const
{
    Sandbox box;
    if (m_scratch && m_scratch->isValid()) {
        box.environment = m_scratch->environment();
        box.confineWrites = {m_scratch->path()};
    }
    if (m_remoteSandbox) {
        box.supervisorOptions = m_remoteSandbox->supervisorOptions();
        box.token = m_remoteSandbox->token();
    }
    if (witness) {
        const QProcessEnvironment traced = witness->pipeWriteEnd() >= 0
                                               ? witness->pipeEnvironment(m_options.witnessTracer)
                                               : witness->environment(m_options.witnessTracer);
        for (const QString &key : traced.keys())
            box.environment.insert(key, traced.value(key));
        if (witness->pipeWriteEnd() >= 0)
            box.inherited << witness->pipeWriteEnd();
    }
    return box;
}

QCoro::Task<bool> ProcessPerRunRunner::waitReady()
{
    co_return !(m_job && m_job->isCancelled());
}

QStringList ProcessPerRunRunner::judgeArguments(int, const QString &) const
{
    return {};
}

ProcessPerRunRunner::LineAnswer ProcessPerRunRunner::runAnswers(int) const
{
    return {};
}

QCoro::Task<ProcessPerRunRunner::Finished>
ProcessPerRunRunner::execute(ScriptRunnerOptions options, QStringList arguments, Sandbox sandbox,
                             LineAnswer answers, int runIndex, Wording wording, QPointer<Job> job)
{
    ProcessSpec spec;
    spec.program = options.python;
    spec.arguments = QStringList{options.script} + arguments;
    spec.workingDirectory = options.workingDirectory;
    spec.timeout = options.timeout;
    spec.extraEnvironment = sandbox.environment;
    spec.confineWrites = sandbox.confineWrites;
    spec.inheritedDescriptors = sandbox.inherited;
    spec.answerLine = answers;
    if (options.remote) { // a fresh run reads no stdin: only a lost connection ends it early
        options.remote->wrap(spec, true, sandbox.supervisorOptions);
        spec.standardInput.prepend(sandbox.token + '\n'); // the supervisor's, never the script's
    }
    const QString name = options.displayName;
    ProcessResult r = co_await ProcessRunner::run(spec, job);

    Finished f;
    f.wallSeconds = r.wallSeconds;
    f.confinement =
        options.remote ? RemoteSandbox::takeReport(&r.standardOutput, sandbox.token) : r.confinement;
    const QString tail = r.stderrTail(12);
    f.stderrText = tail.isEmpty() ? QString() : QStringLiteral("\nLast lines of its stderr:\n") + tail;
    switch (r.status) {
    case ProcessResult::Status::Cancelled:
        f.cancelled = true;
        co_return f;
    case ProcessResult::Status::FailedToStart:
        throw UserError(
            QStringLiteral("%1 run %2: could not start %3 (%4). Check the interpreter (HOTKERNEL_PYTHON).")
                .arg(name)
                .arg(runIndex)
                .arg(spec.program, r.errorString));
    case ProcessResult::Status::TimedOut:
        throw UserError(
            QStringLiteral("%1 run %2: no result within %3 s; its process group was killed. Raise %4, or "
                           "look for a hang.%5")
                .arg(name)
                .arg(runIndex)
                .arg(double(spec.timeout.count()) / 1000.0)
                .arg(wording.timeoutAdvice, f.stderrText));
    case ProcessResult::Status::Crashed:
        throw UserError(QStringLiteral("%1 run %2: the script crashed (killed by a signal).%3")
                            .arg(name)
                            .arg(runIndex)
                            .arg(f.stderrText));
    case ProcessResult::Status::Finished:
        break;
    }
    if (options.remote && options.remote->isTransportFailure(r.exitCode, r.standardError))
        throw UserError(QStringLiteral("%1 run %2: %3")
                            .arg(name)
                            .arg(runIndex)
                            .arg(options.remote->describeFailure(r.standardError)));
    if (r.exitCode != 0)
        throw UserError(QStringLiteral("%1 run %2: exited with code %3%4.%5")
                            .arg(name)
                            .arg(runIndex)
                            .arg(r.exitCode)
                            .arg(wording.exitNote, f.stderrText));
    f.standardOutput = r.standardOutput;
    co_return f;
}

QCoro::Task<RunOutcome> ProcessPerRunRunner::run(int runIndex)
{
    const QString name = m_options.displayName;
    const OutputParser parse = m_parser;
    // A confined run may write no file outside its scratch: its tracer writes into a pipe of its
    // own (issue 41); an unconfined one (a remote host's) appends to this runner's file.
    std::shared_ptr<WitnessTrace> witness;
    if (!m_options.witnessTracer.isEmpty() && m_scratch && m_scratch->isValid()) {
        witness = WitnessTrace::piped();
    } else if (!m_options.witnessTracer.isEmpty()) {
        if (!m_witness)
            m_witness = std::make_shared<WitnessTrace>();
        if (m_witness->isValid())
            witness = m_witness;
    }
    const Sandbox box = sandbox(witness.get());
    const std::shared_ptr<QString> seen = m_confinement;
    // Nothing of this runner is read after the co_await: its owner may have let it go meanwhile.
    const LineAnswer seedAnswers = runAnswers(runIndex);
    const auto bracket = m_bracket ? std::make_shared<BracketClock>(runIndex) : nullptr;
    LineAnswer answers = seedAnswers;
    if (bracket)
        answers = [bracket, seedAnswers](const QByteArray &line) {
            if (const std::optional<QByteArray> reply = bracket->take(line))
                return *reply;
            return seedAnswers ? seedAnswers(line) : QByteArray();
        };
    const Finished f =
        co_await execute(m_options, runArguments(runIndex), box, answers, runIndex, m_wording, m_job);
    if (!f.confinement.isEmpty() && (seen->isEmpty() || WriteConfinement::confined(*seen)))
        *seen = f.confinement; // the first unconfined run's reason stays
    RunOutcome outcome;
    outcome.wallSeconds = f.wallSeconds;
    if (f.cancelled) {
        outcome.cancelled = true;
        co_return outcome;
    }
    QString error;
    auto line = parse(f.standardOutput, name, runIndex, &error);
    if (!line)
        throw UserError(error + f.stderrText);
    outcome.line = std::move(*line);
    if (bracket) {
        outcome.bracketSeconds = bracket->seconds();
        outcome.bracketFault = bracket->fault();
    }
    if (witness) {
        outcome.witnessed = true;
        outcome.witness = witness->takeNew();
    }
    co_return outcome;
}

QCoro::Task<JudgeOutcome> ProcessPerRunRunner::judge(int runIndex, QString file)
{
    const QString name = m_options.displayName;
    const QStringList arguments = judgeArguments(runIndex, file);
    if (arguments.isEmpty())
        throw UserError(
            QStringLiteral("%1 cannot judge another script's outputs: only scripts of the measurement "
                           "contract can (make them with `hotkernel new`).")
                .arg(name));
    const Sandbox box = sandbox(nullptr);
    const LineAnswer noAnswers;
    const Finished f = co_await execute(m_options, arguments, box, noAnswers, runIndex, m_wording, m_job);
    JudgeOutcome outcome;
    outcome.wallSeconds = f.wallSeconds;
    if (f.cancelled) {
        outcome.cancelled = true;
        co_return outcome;
    }
    QString error;
    auto answer = RunLineParser::parseJudgeOutput(f.standardOutput, name, runIndex, &error);
    if (!answer)
        throw UserError(error + f.stderrText);
    outcome.answer = std::move(*answer);
    co_return outcome;
}

} // namespace hotkernel
