// SPDX-License-Identifier: Apache-2.0
#include "clifrontend.h"

#include "sessionclient.h"

#include "base/usererror.h"
#include "record/verifyrecord.h"
#include "session/cliarguments.h"
#include "session/session.h"

#include <QCoroSignal>

#include <cstdio>
#include <tuple>

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
// `verify --record --note N --who W`: the CLI's way to record, since record accepts only a result
// this process's session produced (a file written by an earlier `hotkernel verify` is refused).
struct RecordAfterVerify
{
    bool wanted = false;
    QString note;
    QString who;
};

// Takes --record, --note and --who out of a verify's words (before any "--"); throws UserError.
RecordAfterVerify takeRecordOptions(QStringList &arguments)
{
    RecordAfterVerify r;
    bool noteGiven = false;
    bool whoGiven = false;
    for (qsizetype i = 0; i < arguments.size();) {
        const QString arg = arguments.at(i);
        if (arg == QLatin1String("--"))
            break;
        if (arg == QLatin1String("--record")) {
            r.wanted = true;
            arguments.removeAt(i);
            continue;
        }
        QString *value = nullptr;
        QString name;
        for (const auto &[flag, field, given] : {std::tuple{QStringLiteral("--note"), &r.note, &noteGiven},
                                                 std::tuple{QStringLiteral("--who"), &r.who, &whoGiven}}) {
            if (arg == flag || arg.startsWith(flag + QLatin1Char('='))) {
                value = field;
                name = flag;
                *given = true;
            }
        }
        if (!value) {
            ++i;
            continue;
        }
        if (arg.size() > name.size()) {
            *value = arg.mid(name.size() + 1);
            arguments.removeAt(i);
        } else if (i + 1 < arguments.size()) {
            *value = arguments.at(i + 1);
            arguments.remove(i, 2);
        } else {
            throw UserError(QStringLiteral("%1 needs a value: %1 \"TEXT\".").arg(name));
        }
    }
    if (!r.wanted && (noteGiven || whoGiven)) {
        throw UserError(QStringLiteral(
            "--note and --who belong to --record: add --record to record this verify, or leave them out."));
    }
    if (r.wanted && (r.note.trimmed().isEmpty() || r.who.trimmed().isEmpty())) {
        throw UserError(QStringLiteral(
            "verify --record needs --note \"what changed in the candidate\" and --who \"who made it "
            "(agent: <model>, or a person)\"."));
    }
    return r;
}
} // namespace

CliFrontend::CliFrontend(Session &session, Options options)
    : m_session(session), m_options(std::move(options))
{}

CliFrontend::~CliFrontend() = default;

QCoro::Task<void> CliFrontend::joinSession(const ToolSpec &spec)
{
    // profile and torch-trace run the user's own program, which must see this shell's environment
    // (a flag set for this one run), not the session's: they always run here.
    if (!m_options.joinSession || spec.runsUserProgram)
        co_return;
    SessionClient::Joined joined = co_await SessionClient::join(
        m_session.workDir().root(), m_session.hostDisplay(), m_options.hostArgument, true);
    if (joined.client) {
        m_joined = std::move(joined.client);
        if (!m_options.quiet)
            writeTo(
                stderr,
                QStringLiteral("hotkernel %1: in the session of %2").arg(spec.cliVerb, m_joined->servedBy()));
    } else {
        // Always said, also with --quiet: the call then pays its workers' start on its own.
        writeTo(stderr, QStringLiteral("hotkernel %1: runs alone, not in the directory's session: %2")
                            .arg(spec.cliVerb, joined.whyNot));
    }
}

QCoro::Task<int> CliFrontend::run(const ToolSpec &spec, QStringList arguments)
{
    if (arguments.contains(QStringLiteral("--help")) || arguments.contains(QStringLiteral("-h"))) {
        QString usage = CliArguments::usage(spec);
        if (spec.resultKind == ToolSpec::ResultKind::Verify) {
            usage += QStringLiteral(
                "\n  --record --note NOTE --who WHO   then record the result (results/, LEADERBOARD.md); "
                "record accepts only a result verified in the same process");
        }
        writeTo(stdout,
                (spec.help.isEmpty() ? spec.description : spec.help) + QStringLiteral("\n\n") + usage);
        co_return 0;
    }
    RecordAfterVerify recordAfter;
    Json toolArguments;
    try {
        if (spec.resultKind == ToolSpec::ResultKind::Verify)
            recordAfter = takeRecordOptions(arguments);
        toolArguments = CliArguments::parse(spec, arguments);
    } catch (const UserError &e) {
        writeTo(stderr, e.message());
        co_return 2;
    }

    co_await joinSession(spec);
    const std::optional<ToolResult> result = co_await call(spec, std::move(toolArguments));
    if (!result)
        co_return 1;
    if (result->cancelled) {
        writeTo(stderr, QStringLiteral("hotkernel %1: cancelled").arg(spec.cliVerb));
        co_return 130;
    }
    if (result->isError) {
        if (m_options.json)
            writeTo(stdout, toQt(result->structured.dump(2)));
        writeTo(stderr, QStringLiteral("hotkernel %1: %2").arg(spec.cliVerb, result->text));
        co_return 1;
    }
    if (!recordAfter.wanted) {
        writeTo(stdout, m_options.json ? toQt(result->structured.dump(2)) : result->text);
        co_return 0;
    }

    // The verify's JSON is passed on whole, unread: record takes it by value without an id, and
    // --json prints it.
    const VerifyRecord *typed = result->as<VerifyRecord>();
    const ToolSpec *recordSpec = nullptr;
    for (const ToolSpec &s : m_session.tools().all()) {
        if (s.resultKind == ToolSpec::ResultKind::Record)
            recordSpec = &s;
    }
    QString problem;
    std::optional<ToolResult> recorded;
    if (!recordSpec) {
        problem = QStringLiteral("this hotkernel has no record tool");
    } else if (!typed || typed->target.isEmpty()) {
        problem = QStringLiteral("the verify names no target (an uncontracted pair, not made by new_target), "
                                 "so there is nothing to record it under: make the pair with new_target");
    } else {
        // Built before the co_await: GCC 12 cannot keep a braced initializer list in a coroutine frame.
        Json recordArguments = Json::object();
        recordArguments["target"] = toStd(typed->target);
        // By id where the session gave one (issue 44); a swapped-in verify without one by value.
        if (!typed->verifyId.isEmpty())
            recordArguments["verify_id"] = toStd(typed->verifyId);
        else
            recordArguments["verify_result"] = result->structured;
        recordArguments["note"] = toStd(recordAfter.note);
        recordArguments["who"] = toStd(recordAfter.who);
        recorded = co_await call(*recordSpec, std::move(recordArguments));
        if (!recorded)
            co_return 1;
        if (recorded->isError || recorded->cancelled)
            problem = recorded->cancelled ? QStringLiteral("cancelled") : recorded->text;
    }
    if (m_options.json) {
        Json both = result->structured;
        both["record"] = problem.isEmpty() ? recorded->structured : Json(nullptr);
        writeTo(stdout, toQt(both.dump(2)));
    } else {
        writeTo(stdout, result->text);
        if (problem.isEmpty())
            writeTo(stdout, recorded->text);
    }
    if (!problem.isEmpty()) {
        writeTo(stderr, QStringLiteral("hotkernel %1 --record: not recorded: %2").arg(spec.cliVerb, problem));
        co_return 1;
    }
    co_return 0;
}

QCoro::Task<std::optional<ToolResult>> CliFrontend::call(const ToolSpec &spec, Json arguments)
{
    if (m_joined) {
        std::function<void(const QString &)> progress;
        if (!m_options.quiet) {
            progress = [name = spec.cliVerb](const QString &message) {
                writeTo(stderr, QStringLiteral("[%1] %2").arg(name, message));
            };
        }
        std::optional<ToolResult> result =
            co_await m_joined->call(spec.name, std::move(arguments), std::move(progress));
        // The session's reply is JSON: its typed value is read here, as the session reads a verify's.
        if (result)
            spec.attachValue(*result);
        co_return result;
    }
    QPointer<Job> job = m_session.start(spec.name, std::move(arguments), QStringLiteral("cli"));
    if (!m_options.quiet) {
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
        co_return std::nullopt;
    co_return job->result();
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
            "       hotkernel serve            serve this directory's session for CLI calls and agents\n"
            "                                  (exits after 10 idle minutes; --idle-minutes M)\n"
            "       hotkernel VERB [options]   run one tool from the command line, in the directory's\n"
            "                                  session (the window's, or a `hotkernel serve` it starts)\n\n"
            "verbs:\n")
            .arg(QStringLiteral(HOTKERNEL_VERSION));
    for (const ToolSpec &spec : session.tools().all())
        text += QStringLiteral("  %1  %2\n").arg(spec.cliVerb.leftJustified(12), spec.title);
    text += QStringLiteral("  %1  %2\n")
                .arg(QStringLiteral("leaderboard").leftJustified(12),
                     QStringLiteral("Regenerate LEADERBOARD.md from results/ (--check: compare only)"));
    text += QStringLiteral("  %1  %2\n")
                .arg(QStringLiteral("calibrate").leftJustified(12),
                     QStringLiteral("Measure this card's bandwidth and tensor-core peak for roofline "
                                    "(--record, --quick, --device N)"));
    text += QStringLiteral("  %1  %2\n")
                .arg(QStringLiteral("helpers").leftJustified(12),
                     QStringLiteral("Say where the native helpers (supervisor, CUPTI tracer, calibrate) "
                                    "were found"));
    text += QStringLiteral(
        "\nglobal options: --json (machine-readable output), --quiet (no progress on stderr), --version,\n"
        "                --host ssh://[user@]host[:port][/workdir][?python=PATH] or\n"
        "                slurm://[partition][?gres=gpu:1&time=60] (run the workers there; default\n"
        "                HOTKERNEL_HOST, else local: docs/remote.md, docs/remote-slurm.md),\n"
        "                --no-session (run the verb in this process alone; also HOTKERNEL_NO_SESSION=1)\n"
        "`hotkernel VERB --help` lists a verb's options.\n");
    return text;
}

} // namespace hotkernel
