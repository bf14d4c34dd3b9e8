// SPDX-License-Identifier: Apache-2.0
#include "measure/freshscriptrunner.h"

#include "base/usererror.h"
#include "process/processrunner.h"
#include "session/job.h"

#include <QFileInfo>

namespace hotkernel {

FreshScriptRunner::FreshScriptRunner(ScriptRunnerOptions options) : ScriptRunner(std::move(options))
{
    if (m_options.workingDirectory.isEmpty())
        m_options.workingDirectory = QFileInfo(m_options.script).absolutePath();
    if (m_options.displayName.isEmpty())
        m_options.displayName = QFileInfo(m_options.script).fileName();
}

QCoro::Task<bool> FreshScriptRunner::waitReady()
{
    co_return !(m_job && m_job->isCancelled());
}

QString FreshScriptRunner::commandLine() const
{
    return shellQuote(m_options.python) + QLatin1Char(' ') + shellQuote(m_options.script) +
           QStringLiteral(" --run I");
}

QCoro::Task<RunOutcome> FreshScriptRunner::run(int runIndex)
{
    ProcessSpec spec;
    spec.program = m_options.python;
    spec.arguments = QStringList{m_options.script, QStringLiteral("--run"), QString::number(runIndex)};
    spec.workingDirectory = m_options.workingDirectory;
    spec.timeout = m_options.timeout;
    const QString name = m_options.displayName;
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
            QStringLiteral("%1 run %2: no result within %3 s; its process group was killed. Raise "
                           "--timeout if the kernel is that slow, or look for a hang.%4")
                .arg(name)
                .arg(runIndex)
                .arg(double(spec.timeout.count()) / 1000.0)
                .arg(stderrText));
    case ProcessResult::Status::Crashed:
        throw UserError(QStringLiteral("%1 run %2: the script crashed (killed by a signal).%3")
                            .arg(name)
                            .arg(runIndex)
                            .arg(stderrText));
    case ProcessResult::Status::Finished:
        break;
    }
    if (r.exitCode != 0)
        throw UserError(QStringLiteral("%1 run %2: exited with code %3 before a result line.%4")
                            .arg(name)
                            .arg(runIndex)
                            .arg(r.exitCode)
                            .arg(stderrText));
    QString error;
    auto line = RunLineParser::parseOutput(r.standardOutput, name, runIndex, &error);
    if (!line)
        throw UserError(error + stderrText);
    outcome.line = std::move(*line);
    co_return outcome;
}

} // namespace hotkernel
