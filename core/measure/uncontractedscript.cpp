// SPDX-License-Identifier: Apache-2.0
#include "measure/uncontractedscript.h"

#include "base/usererror.h"
#include "process/processrunner.h"
#include "session/job.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace hotkernel {

UncontractedScriptRunner::UncontractedScriptRunner(ScriptRunnerOptions options, QStringList arguments)
    : ScriptRunner(std::move(options)), m_arguments(std::move(arguments))
{
    if (m_options.workingDirectory.isEmpty())
        m_options.workingDirectory = QFileInfo(m_options.script).absolutePath();
    if (m_options.displayName.isEmpty())
        m_options.displayName = QFileInfo(m_options.script).fileName();
}

bool UncontractedScriptRunner::isUncontracted(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    // Scripts made by `hotkernel new` import the vendored contract at the top and hand their run to
    // its main; test doubles hand it to a stand-in contract module the same way. Taking a script
    // for contracted is safe when wrong: the contracted path then refuses its lines (no protocol).
    static const QRegularExpression contractImport(
        QStringLiteral("^\\s*(from|import)\\s+_hotkernel_contract\\b|^\\s*from\\s+[\\w.]*contract\\s+"
                       "import\\s[^\\n]*\\bmain\\b"),
        QRegularExpression::MultilineOption);
    return !contractImport.match(QString::fromUtf8(file.read(1 << 20))).hasMatch();
}

std::optional<RunLine> UncontractedScriptRunner::parseOutput(const QByteArray &standardOutput,
                                                             const QString &script, int run, QString *error)
{
    const QList<QByteArray> lines = standardOutput.split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QByteArray line = it->trimmed();
        if (!line.startsWith('{'))
            continue;
        const std::optional<Json> parsed = parseJson(line);
        if (!parsed || !parsed->is_object() || !parsed->contains("ms") || !parsed->contains("ok"))
            continue;
        const Json &j = *parsed;
        if (!j["ok"].is_boolean() || !j["ms"].is_number()) {
            *error = QStringLiteral("%1 run %2: the result line needs a number \"ms\" and a boolean \"ok\"; "
                                    "it printed %3")
                         .arg(script)
                         .arg(run)
                         .arg(QString::fromUtf8(line.left(300)));
            return std::nullopt;
        }
        RunLine r;
        r.json = j;
        r.ok = j["ok"].get<bool>();
        r.ms = j["ms"].get<double>();
        r.run = run;
        r.timer = stringField(j, "timer");
        if (r.ok && !(r.ms > 0)) {
            *error = QStringLiteral("%1 run %2: \"ms\" must be above 0 when ok is true (got %3).")
                         .arg(script)
                         .arg(run)
                         .arg(r.ms);
            return std::nullopt;
        }
        if (!r.ok)
            r.mismatch = stringField(j, "error", QStringLiteral("the script reported ok false"));
        return r;
    }
    *error =
        QStringLiteral("%1 run %2: printed no JSON line with \"ms\" and \"ok\" on stdout (an uncontracted "
                       "script must print one, e.g. {\"ms\": 0.25, \"ok\": true}).")
            .arg(script)
            .arg(run);
    return std::nullopt;
}

QCoro::Task<bool> UncontractedScriptRunner::waitReady()
{
    co_return !(m_job && m_job->isCancelled());
}

QString UncontractedScriptRunner::commandLine() const
{
    QStringList words{m_options.python, m_options.script};
    words += m_arguments;
    QString line;
    for (const QString &w : std::as_const(words))
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + shellQuote(w);
    return line;
}

QCoro::Task<RunOutcome> UncontractedScriptRunner::run(int runIndex)
{
    ProcessSpec spec;
    spec.program = m_options.python;
    spec.arguments = QStringList{m_options.script} + m_arguments;
    spec.workingDirectory = m_options.workingDirectory;
    spec.timeout = m_options.timeout;
    const QString name = m_options.displayName;
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
                           "timeout if it is that slow, or look for a hang.%4")
                .arg(name)
                .arg(runIndex)
                .arg(double(m_options.timeout.count()) / 1000.0)
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
        throw UserError(QStringLiteral("%1 run %2: exited with code %3.%4")
                            .arg(name)
                            .arg(runIndex)
                            .arg(r.exitCode)
                            .arg(stderrText));
    QString error;
    auto line = parseOutput(r.standardOutput, name, runIndex, &error);
    if (!line)
        throw UserError(error + stderrText);
    outcome.line = std::move(*line);
    co_return outcome;
}

} // namespace hotkernel
