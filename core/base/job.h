// SPDX-License-Identifier: Apache-2.0
// One running tool call: its progress, its cancellation and its log lines. Owned by the Session,
// lives on the Session's thread. Every front-end cancels through Session::cancel(), which lands here.
// It lives in base/, below every runner that takes one (docs/hacking.md, "Layers").
#pragma once

#include "base/json.h"
#include "base/toolresult.h"

#include <QDateTime>
#include <QObject>

#include <optional>

namespace hotkernel {

class Job : public QObject
{
    Q_OBJECT
public:
    enum class State { Running, Finished, Failed, Cancelled };
    Q_ENUM(State)

    Job(quint64 id, QString tool, Json arguments, QString client, QObject *parent = nullptr);

    quint64 id() const { return m_id; }
    QString tool() const { return m_tool; }
    const Json &arguments() const { return m_arguments; }
    QString client() const { return m_client; } // "cli", "window", or the MCP client's name
    QDateTime startedAt() const { return m_startedAt; }
    State state() const { return m_state; }
    const ToolResult &result() const { return m_result; }
    double elapsedSeconds() const;

    bool isCancelled() const { return m_cancelled; }
    void cancel();

    // done and total count units the tool chooses (runs, pairs); total unknown = indeterminate.
    void setProgress(double done, std::optional<double> total, const QString &message);
    double progress() const { return m_progress; }
    std::optional<double> progressTotal() const { return m_total; }
    QString progressMessage() const { return m_message; }

    void log(const QString &line);

    // Called by the Session when the handler returns.
    void finish(ToolResult result);

Q_SIGNALS:
    void cancelRequested();
    void progressChanged(double done, std::optional<double> total, const QString &message);
    void logged(const QString &line);
    void finished(const hotkernel::ToolResult &result);

private:
    quint64 m_id;
    QString m_tool;
    Json m_arguments;
    QString m_client;
    QDateTime m_startedAt;
    State m_state = State::Running;
    bool m_cancelled = false;
    double m_progress = 0;
    std::optional<double> m_total;
    QString m_message;
    ToolResult m_result;
};

} // namespace hotkernel
