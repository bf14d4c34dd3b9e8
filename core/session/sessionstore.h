// SPDX-License-Identifier: Apache-2.0
// Saves what a session did (targets, run summaries, profiles, verify history) in
// <workdir>/.hotkernel/session.json after every job, and reloads it when the directory is reopened.
// Lives on the Session's thread.
#pragma once

#include "base/json.h"
#include "session/toolspec.h"

#include <QDateTime>
#include <QObject>
#include <QStringList>

#include <any>

namespace hotkernel {

class Job;
class Session;

struct RunSummary
{
    quint64 id = 0; // the job id in the session that ran it (ids restart per session)
    QString tool;
    QString client;
    QString arguments; // one line
    QDateTime startedAt;
    double durationS = 0; // negative: not known (a recorded call that did not say)
    QString state;        // "finished", "failed", "cancelled"
    QString summary;      // first line of the result, or the error
    // What front-ends know of the result without reading its JSON: the tool's kind (a reloaded
    // run's from the tool's name), and its typed value where the run's result is at hand (a job of
    // this session, a recorded call). Not saved.
    ToolSpec::ResultKind kind = ToolSpec::ResultKind::Other;
    std::any value;
    bool reloaded = false; // from an earlier session
    // A recorded call's whole result (arguments, isError, structuredContent) and its text, for the
    // details dialog. Not saved: session.json keeps the one-line summaries only.
    Json details;
    QString detailsText;

    Json toJson() const;
    static RunSummary fromJson(const Json &json);
    // spec: the job's tool, whose headline (when it has one) summarises a successful result.
    static RunSummary fromJob(const Job &job, const ToolSpec *spec = nullptr);
    // A call made elsewhere and recorded (its arguments, structured result as `--json` printed it,
    // and its text), shown like a reloaded run whose details were kept. Its time and duration are
    // the result's started_at and wall_s; without them, an invalid time and a negative duration.
    static RunSummary fromRecorded(const QString &tool, const QString &client, const Json &arguments,
                                   const Json &structured, const QString &text, const ToolSpec *spec);
};

class SessionStore : public QObject
{
    Q_OBJECT
public:
    explicit SessionStore(Session &session, QObject *parent = nullptr);

    QString path() const;
    // Reads the saved session; false (and why in *error) when the file exists but is unreadable.
    // A missing file is an empty session, not an error.
    bool load(QString *error = nullptr);
    bool save(QString *error = nullptr) const;

    const QList<RunSummary> &runs() const { return m_runs; }
    QStringList targets() const { return m_targets; }
    QStringList profiles() const { return m_profiles; }
    // Structured results of every verify, oldest first.
    const Json &history() const { return m_history; }

    void addTarget(const QString &target);
    void addProfile(const QString &path);
    // Calls made before this session (the demo's recorded ones), put before every run.
    void addRecordedRuns(const QList<RunSummary> &runs);

    // One line each, for feeds and summaries.
    static QString summarizeArguments(const Json &arguments);
    static QString summarizeResult(const ToolResult &result, const ToolSpec *spec = nullptr);

    static constexpr int kMaxRuns = 2000;

Q_SIGNALS:
    void runAdded(const hotkernel::RunSummary &run);

private:
    void onJobFinished(Job *job);

    Session &m_session;
    QList<RunSummary> m_runs;
    QStringList m_targets;
    QStringList m_profiles;
    Json m_history = Json::array();
};

} // namespace hotkernel
