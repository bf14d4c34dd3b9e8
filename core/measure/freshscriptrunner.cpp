// SPDX-License-Identifier: Apache-2.0
#include "measure/freshscriptrunner.h"

#include "measure/judgeseedrequest.h"
#include "process/processspec.h"

#include <memory>

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
    // Issue 41: never the seed itself on the command line, where the script reads it before its
    // timed block; the contract asks for it on stdout once the block is captured and timed, as a
    // worker does (runAnswers).
    if (m_judgeSeed)
        args << QStringLiteral("--judge-seed") << QStringLiteral("late");
    if (!m_judgeDir.isEmpty())
        args << QStringLiteral("--judge-dir") << m_judgeDir;
    if (m_eventsTimer)
        args << QStringLiteral("--timer") << QStringLiteral("events");
    if (m_bracket)
        args << QStringLiteral("--bracket");
    return args;
}

ProcessPerRunRunner::LineAnswer FreshScriptRunner::runAnswers(int runIndex) const
{
    if (!m_judgeSeed)
        return {};
    // Answered once: a second question (something else in the process asking) gets nothing.
    auto answered = std::make_shared<bool>(false);
    return [seed = *m_judgeSeed, runIndex, answered](const QByteArray &line) {
        if (*answered || !JudgeSeedRequest::matches(line, runIndex))
            return QByteArray();
        *answered = true;
        return JudgeSeedRequest::answer(seed);
    };
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
