// SPDX-License-Identifier: Apache-2.0
#include "measure/freshscriptrunner.h"

#include "process/processspec.h"

namespace hotkernel {

FreshScriptRunner::FreshScriptRunner(ScriptRunnerOptions options)
    : ProcessPerRunRunner(std::move(options), &RunLineParser::parseOutput,
                          Wording{QStringLiteral("--timeout if the kernel is that slow"),
                                  QStringLiteral(" before a result line")})
{}

QString FreshScriptRunner::commandLine() const
{
    return shellQuote(m_options.python) + QLatin1Char(' ') + shellQuote(m_options.script) +
           QStringLiteral(" --run I");
}

QStringList FreshScriptRunner::runArguments(int runIndex) const
{
    QStringList args{QStringLiteral("--run"), QString::number(runIndex)};
    if (m_judgeSeed)
        args << QStringLiteral("--judge-seed") << QString::number(*m_judgeSeed);
    if (!m_judgeDir.isEmpty())
        args << QStringLiteral("--judge-dir") << m_judgeDir;
    if (m_eventsTimer)
        args << QStringLiteral("--timer") << QStringLiteral("events");
    return args;
}

QStringList FreshScriptRunner::judgeArguments(int runIndex, const QString &file) const
{
    // A fresh process draws the judged inputs again from the seed (the worker reuses its own run's).
    QStringList args{QStringLiteral("--run"), QString::number(runIndex), QStringLiteral("--judge-file"),
                     file};
    if (m_judgeSeed)
        args << QStringLiteral("--judge-seed") << QString::number(*m_judgeSeed);
    return args;
}

} // namespace hotkernel
