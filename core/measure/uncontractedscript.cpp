// SPDX-License-Identifier: Apache-2.0
#include "measure/uncontractedscript.h"

#include "base/boundedfile.h"
#include "base/json.h"
#include "process/processspec.h"

#include <QFile>
#include <QRegularExpression>

namespace hotkernel {

UncontractedScriptRunner::UncontractedScriptRunner(ScriptRunnerOptions options, QStringList arguments)
    : ProcessPerRunRunner(std::move(options), &UncontractedScriptRunner::parseOutput,
                          Wording{QStringLiteral("timeout if it is that slow"), QString()}),
      m_arguments(std::move(arguments))
{}

bool UncontractedScriptRunner::isUncontracted(const QString &path)
{
    const BoundedFile::Read file = BoundedFile::readStart(path, 1 << 20);
    if (!file.ok())
        return false;
    // Scripts made by `hotkernel new` import the vendored contract at the top and hand their run to
    // its main; test doubles hand it to a stand-in contract module the same way. Taking a script
    // for contracted is safe when wrong: the contracted path then refuses its lines (no protocol).
    static const QRegularExpression contractImport(
        QStringLiteral("^\\s*(from|import)\\s+_hotkernel_contract\\b|^\\s*from\\s+[\\w.]*contract\\s+"
                       "import\\s[^\\n]*\\bmain\\b"),
        QRegularExpression::MultilineOption);
    return !contractImport.match(QString::fromUtf8(file.bytes)).hasMatch();
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

QString UncontractedScriptRunner::commandLine() const
{
    QStringList words{m_options.python, m_options.script};
    words += m_arguments;
    QString line;
    for (const QString &w : std::as_const(words))
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + shellQuote(w);
    return line;
}

QStringList UncontractedScriptRunner::runArguments(int /*runIndex*/) const
{
    return m_arguments;
}

} // namespace hotkernel
