// SPDX-License-Identifier: Apache-2.0
#include "clifrontend.h"

#include "base/usererror.h"
#include "session/cliarguments.h"
#include "session/session.h"

#include <QCoroSignal>

#include <cstdio>

namespace hotkernel {

namespace {
void writeTo(FILE *stream, const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stream);
    if (!text.endsWith(QLatin1Char('\n')))
        std::fputc('\n', stream);
    std::fflush(stream);
}
} // namespace

CliFrontend::CliFrontend(Session &session, bool json, bool quiet)
    : m_session(session), m_json(json), m_quiet(quiet)
{}

QCoro::Task<int> CliFrontend::run(const ToolSpec &spec, QStringList arguments)
{
    if (arguments.contains(QStringLiteral("--help")) || arguments.contains(QStringLiteral("-h"))) {
        writeTo(stdout, (spec.help.isEmpty() ? spec.description : spec.help) + QStringLiteral("\n\n") +
                            CliArguments::usage(spec));
        co_return 0;
    }
    Json toolArguments;
    try {
        toolArguments = CliArguments::parse(spec, arguments);
    } catch (const UserError &e) {
        writeTo(stderr, e.message());
        co_return 2;
    }

    QPointer<Job> job = m_session.start(spec.name, toolArguments, QStringLiteral("cli"));
    if (!m_quiet) {
        QObject::connect(
            job.data(), &Job::progressChanged, job.data(),
            [name = spec.cliVerb](double done, std::optional<double> total, const QString &message) {
                const QString counter =
                    total ? QStringLiteral("%1/%2").arg(done).arg(*total) : QStringLiteral("%1").arg(done);
                writeTo(stderr, QStringLiteral("[%1 %2] %3").arg(name, counter, message));
            });
        QObject::connect(job.data(), &Job::logged, job.data(), [name = spec.cliVerb](const QString &line) {
            writeTo(stderr, QStringLiteral("[%1] %2").arg(name, line));
        });
    }
    if (job->state() == Job::State::Running)
        co_await qCoro(job.data(), &Job::finished);
    if (!job)
        co_return 1;
    const ToolResult &result = job->result();
    if (result.cancelled) {
        writeTo(stderr, QStringLiteral("hotkernel %1: cancelled").arg(spec.cliVerb));
        co_return 130;
    }
    if (result.isError) {
        if (m_json)
            writeTo(stdout, toQt(result.structured.dump(2)));
        writeTo(stderr, QStringLiteral("hotkernel %1: %2").arg(spec.cliVerb, result.text));
        co_return 1;
    }
    writeTo(stdout, m_json ? toQt(result.structured.dump(2)) : result.text);
    co_return 0;
}

QString CliFrontend::help(const Session &session)
{
    QString text =
        QStringLiteral(
            "hotkernel %1: find the hot kernel, prove the rewrite is correct and faster.\n\n"
            "usage: hotkernel                  open the workbench window on this directory\n"
            "       hotkernel --demo           open the bundled demo session\n"
            "       hotkernel mcp              serve MCP over stdio for a coding agent (attaches to the\n"
            "                                  window open on this directory; --headless: never)\n"
            "       hotkernel VERB [options]   run one tool from the command line\n\n"
            "verbs:\n")
            .arg(QStringLiteral(HOTKERNEL_VERSION));
    for (const ToolSpec &spec : session.tools().all())
        text += QStringLiteral("  %1  %2\n").arg(spec.cliVerb.leftJustified(12), spec.title);
    text += QStringLiteral("  %1  %2\n")
                .arg(QStringLiteral("leaderboard").leftJustified(12),
                     QStringLiteral("Regenerate LEADERBOARD.md from results/ (--check: compare only)"));
    text += QStringLiteral(
        "\nglobal options: --json (machine-readable output), --quiet (no progress on stderr), --version\n"
        "`hotkernel VERB --help` lists a verb's options.\n");
    return text;
}

} // namespace hotkernel
