// SPDX-License-Identifier: Apache-2.0
// Saves what a session did (targets, run summaries, profiles, verify history) in
// <workdir>/.hotkernel/session.json after every job, and reloads it when the directory is reopened.
// Lives on the Session's thread.
#pragma once

#include "base/json.h"

#include <QDateTime>
#include <QObject>
#include <QStringList>

namespace hotkernel {

class Job;
class Session;
struct ToolResult;
struct ToolSpec;

struct RunSummary
{
    quint64 id = 0; // the job id in the session that ran it (ids restart per session)
    QString tool;
    QString client;
    QString arguments; // one line
    QDateTime startedAt;
    double durationS = 0;
    QString state;         // "finished", "failed", "cancelled"
    QString summary;       // first line of the result, or the error
    bool reloaded = false; // from an earlier session

    Json toJson() const;
    static RunSummary fromJson(const Json &json);
    // spec: the job's tool, whose headline (when it has one) summarises a successful result.
    static RunSummary fromJob(const Job &job, const ToolSpec *spec = nullptr);
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
