// SPDX-License-Identifier: Apache-2.0
#include "measure/processperrunrunner.h"

#include "base/usererror.h"
#include "process/processrunner.h"
#include "session/job.h"

#include <QFileInfo>

namespace hotkernel {

ProcessPerRunRunner::ProcessPerRunRunner(ScriptRunnerOptions options, OutputParser parser, Wording wording)
    : ScriptRunner(std::move(options)), m_parser(parser), m_wording(std::move(wording))
{
    if (m_options.workingDirectory.isEmpty())
        m_options.workingDirectory = QFileInfo(m_options.script).absolutePath();
    if (m_options.displayName.isEmpty())
        m_options.displayName = QFileInfo(m_options.script).fileName();
}

QCoro::Task<bool> ProcessPerRunRunner::waitReady()
{
    co_return !(m_job && m_job->isCancelled());
}

QCoro::Task<RunOutcome> ProcessPerRunRunner::run(int runIndex)
{
    ProcessSpec spec;
    spec.program = m_options.python;
    spec.arguments = QStringList{m_options.script} + runArguments(runIndex);
    spec.workingDirectory = m_options.workingDirectory;
    spec.timeout = m_options.timeout;
    if (!m_options.witnessTracer.isEmpty() && !m_witness)
        m_witness = std::make_shared<WitnessTrace>();
    const std::shared_ptr<WitnessTrace> witness = m_witness && m_witness->isValid() ? m_witness : nullptr;
    if (witness)
        spec.extraEnvironment = witness->environment(m_options.witnessTracer);
    const QString name = m_options.displayName;
    const OutputParser parse = m_parser;
    const Wording wording = m_wording;
    // Nothing of this runner is read after the co_await: its owner may have let it go meanwhile.
    const ProcessResult r = co_await ProcessRunner::run(spec, m_job);

    RunOutcome outcome;
    outcome.wallSeconds = r.wallSeconds;
    const QString tail = r.stderrTail(12);
    const QString stderrText =
        tail.isEmpty() ? QString() : QStringLiteral("\nLast lines of its stderr:\n") + tail;
    switch (r.status) {
    case ProcessResult::Status::Cancelled:
        outcome.cancelled = true;
        co_return outcome;
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
                .arg(wording.timeoutAdvice, stderrText));
    case ProcessResult::Status::Crashed:
        throw UserError(QStringLiteral("%1 run %2: the script crashed (killed by a signal).%3")
                            .arg(name)
                            .arg(runIndex)
                            .arg(stderrText));
    case ProcessResult::Status::Finished:
        break;
    }
    if (r.exitCode != 0)
        throw UserError(QStringLiteral("%1 run %2: exited with code %3%4.%5")
                            .arg(name)
                            .arg(runIndex)
                            .arg(r.exitCode)
                            .arg(wording.exitNote, stderrText));
    QString error;
    auto line = parse(r.standardOutput, name, runIndex, &error);
    if (!line)
        throw UserError(error + stderrText);
    outcome.line = std::move(*line);
    if (witness) {
        outcome.witnessed = true;
        outcome.witness = witness->takeNew();
    }
    co_return outcome;
}

} // namespace hotkernel
