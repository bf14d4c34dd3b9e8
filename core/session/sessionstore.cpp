// SPDX-License-Identifier: Apache-2.0
#include "session/sessionstore.h"

#include "base/boundedfile.h"
#include "base/confinedwrite.h"
#include "base/job.h"
#include "base/logging.h"
#include "base/toolresult.h"
#include "base/usererror.h"
#include "session/session.h"
#include "session/toolspec.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace hotkernel {

namespace {

constexpr int kSchemaVersion = 1;

QString stateName(Job::State state)
{
    switch (state) {
    case Job::State::Running:
        return QStringLiteral("running");
    case Job::State::Finished:
        return QStringLiteral("finished");
    case Job::State::Failed:
        return QStringLiteral("failed");
    case Job::State::Cancelled:
        return QStringLiteral("cancelled");
    }
    return {};
}

void appendUnique(QStringList &list, const QString &value)
{
    if (!value.isEmpty() && !list.contains(value))
        list.append(value);
}

} // namespace

Json RunSummary::toJson() const
{
    return Json{{"id", id},
                {"tool", toStd(tool)},
                {"client", toStd(client)},
                {"arguments", toStd(arguments)},
                {"started_at", toStd(startedAt.toUTC().toString(Qt::ISODateWithMs))},
                {"duration_s", durationS},
                {"state", toStd(state)},
                {"summary", toStd(summary)}};
}

RunSummary RunSummary::fromJson(const Json &json)
{
    RunSummary r;
    if (!json.is_object())
        return r;
    r.id = json.value("id", quint64(0));
    r.tool = stringField(json, "tool");
    r.client = stringField(json, "client");
    r.arguments = stringField(json, "arguments");
    r.startedAt = QDateTime::fromString(stringField(json, "started_at"), Qt::ISODateWithMs);
    r.durationS = json.contains("duration_s") && json["duration_s"].is_number()
                      ? json["duration_s"].get<double>()
                      : 0.0;
    r.state = stringField(json, "state");
    r.summary = stringField(json, "summary");
    r.reloaded = true;
    return r;
}

RunSummary RunSummary::fromJob(const Job &job, const ToolSpec *spec)
{
    RunSummary r;
    r.id = job.id();
    r.tool = job.tool();
    r.client = job.client();
    r.arguments = SessionStore::summarizeArguments(job.arguments());
    r.startedAt = job.startedAt();
    r.durationS = job.elapsedSeconds();
    r.state = stateName(job.state());
    r.summary = job.state() == Job::State::Running ? job.progressMessage()
                                                   : SessionStore::summarizeResult(job.result(), spec);
    r.kind = spec ? spec->resultKind : ToolSpec::ResultKind::Other;
    r.value = job.result().value;
    return r;
}

RunSummary RunSummary::fromRecorded(const QString &tool, const QString &client, const Json &arguments,
                                    const Json &structured, const QString &text, const ToolSpec *spec)
{
    RunSummary r;
    r.tool = tool;
    r.client = client;
    r.arguments = SessionStore::summarizeArguments(arguments);
    r.startedAt = QDateTime::fromString(stringField(structured, "started_at"), Qt::ISODateWithMs);
    r.durationS = structured.contains("wall_s") && structured["wall_s"].is_number()
                      ? structured["wall_s"].get<double>()
                      : -1.0;
    r.state = QStringLiteral("finished");
    ToolResult result = ToolResult::success(structured, text);
    r.summary = SessionStore::summarizeResult(result, spec);
    r.reloaded = true;
    if (spec) {
        r.kind = spec->resultKind;
        spec->attachValue(result);
        r.value = std::move(result.value);
    }
    r.details = Json{{"arguments", arguments}, {"isError", false}, {"structuredContent", structured}};
    r.detailsText = text;
    return r;
}

SessionStore::SessionStore(Session &session, QObject *parent) : QObject(parent), m_session(session)
{
    connect(&session, &Session::jobFinished, this, &SessionStore::onJobFinished);
}

QString SessionStore::path() const
{
    return QDir(m_session.workDir().root()).filePath(QStringLiteral(".hotkernel/session.json"));
}

bool SessionStore::load(QString *error)
{
    if (!QFileInfo::exists(path()) && !QFileInfo(path()).isSymLink())
        return true;
    QString why;
    std::optional<Json> json;
    const BoundedFile::Read file =
        BoundedFile::read(path(), BoundedFile::kJsonLimit, BoundedFile::Links::Refuse);
    if (file.ok())
        json = parseJson(file.bytes, &why);
    else
        why = QStringLiteral("it ") + file.error;
    if (!json || !json->is_object()) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2. Move it away to start a fresh session.")
                         .arg(path(), why.isEmpty() ? QStringLiteral("not a JSON object") : why);
        return false;
    }
    QList<RunSummary> runs;
    if (json->contains("runs") && (*json)["runs"].is_array()) {
        for (const Json &r : (*json)["runs"]) {
            RunSummary run = RunSummary::fromJson(r);
            if (const ToolSpec *spec = m_session.tools().find(run.tool))
                run.kind = spec->resultKind;
            runs.append(std::move(run));
        }
    }
    // Runs of this session so far come after the reloaded ones.
    m_runs = runs + m_runs;
    for (const QString &t : toStringList(json->value("targets", Json::array())))
        appendUnique(m_targets, t);
    for (const QString &p : toStringList(json->value("profiles", Json::array())))
        appendUnique(m_profiles, p);
    if (json->contains("history") && (*json)["history"].is_array()) {
        Json merged = (*json)["history"];
        for (const Json &h : m_history)
            merged.push_back(h);
        m_history = std::move(merged);
    }
    return true;
}

bool SessionStore::save(QString *error) const
{
    Json runs = Json::array();
    for (const RunSummary &r : m_runs)
        runs.push_back(r.toJson());
    const Json json{{"version", kSchemaVersion},      {"hotkernel_version", HOTKERNEL_VERSION},
                    {"targets", toJson(m_targets)},   {"runs", std::move(runs)},
                    {"profiles", toJson(m_profiles)}, {"history", m_history}};
    try {
        ConfinedWrite::writeFile(m_session.workDir().root(), QStringLiteral(".hotkernel/session.json"),
                                 QByteArray::fromStdString(json.dump(1)) + '\n');
    } catch (const UserError &e) {
        if (error)
            *error = e.message();
        return false;
    }
    return true;
}

void SessionStore::addTarget(const QString &target)
{
    appendUnique(m_targets, target);
}

void SessionStore::addProfile(const QString &path)
{
    appendUnique(m_profiles, path);
}

void SessionStore::addRecordedRuns(const QList<RunSummary> &runs)
{
    m_runs = runs + m_runs;
    while (m_runs.size() > kMaxRuns)
        m_runs.removeFirst();
}

void SessionStore::onJobFinished(Job *job)
{
    if (!job)
        return;
    const ToolSpec *spec = m_session.tools().find(job->tool());
    const RunSummary run = RunSummary::fromJob(*job, spec);
    m_runs.append(run);
    while (m_runs.size() > kMaxRuns)
        m_runs.removeFirst();
    const ToolResult &result = job->result();
    if (!result.isError) {
        const Json &s = result.structured;
        const auto kind = spec ? spec->resultKind : ToolSpec::ResultKind::Other;
        if (kind == ToolSpec::ResultKind::Verify)
            m_history.push_back(s);
        if (kind == ToolSpec::ResultKind::NewTarget)
            addTarget(stringField(s, "target"));
        for (const QString &field : spec ? spec->reportFields : QStringList())
            addProfile(stringField(s, toStd(field).c_str()));
    }
    QString error;
    if (!save(&error))
        qCWarning(lcSession) << error;
    Q_EMIT runAdded(run);
}

QString SessionStore::summarizeArguments(const Json &arguments)
{
    if (!arguments.is_object())
        return QString::fromStdString(arguments.dump());
    QStringList parts;
    for (const auto &[key, value] : arguments.items())
        parts.append(QString::fromStdString(key) + QLatin1Char('=') +
                     (value.is_string() ? toQt(value.get<std::string>()) : toQt(value.dump())));
    QString line = parts.join(QLatin1Char(' '));
    if (line.size() > 160)
        line = line.left(157) + QStringLiteral("...");
    return line;
}

QString SessionStore::summarizeResult(const ToolResult &result, const ToolSpec *spec)
{
    if (spec && spec->headline && !result.isError) {
        if (QString line = spec->headline(result.structured); !line.isEmpty())
            return line;
    }
    QString text = result.text.trimmed();
    const qsizetype newline = text.indexOf(QLatin1Char('\n'));
    if (newline >= 0)
        text = text.left(newline);
    if (text.size() > 200)
        text = text.left(197) + QStringLiteral("...");
    return text;
}

} // namespace hotkernel
