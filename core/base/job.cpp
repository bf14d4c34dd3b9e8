// SPDX-License-Identifier: Apache-2.0
#include "base/job.h"

namespace hotkernel {

Job::Job(quint64 id, QString tool, Json arguments, QString client, QObject *parent)
    : QObject(parent), m_id(id), m_tool(std::move(tool)), m_arguments(std::move(arguments)),
      m_client(std::move(client)), m_startedAt(QDateTime::currentDateTimeUtc())
{}

double Job::elapsedSeconds() const
{
    return m_startedAt.msecsTo(QDateTime::currentDateTimeUtc()) / 1000.0;
}

void Job::cancel()
{
    if (m_cancelled || m_state != State::Running)
        return;
    m_cancelled = true;
    Q_EMIT cancelRequested();
}

void Job::setProgress(double done, std::optional<double> total, const QString &message)
{
    m_progress = done;
    m_total = total;
    m_message = message;
    Q_EMIT progressChanged(done, total, message);
}

void Job::log(const QString &line)
{
    Q_EMIT logged(line);
}

void Job::finish(ToolResult result)
{
    if (m_state != State::Running)
        return;
    if (m_cancelled) {
        result.cancelled = true;
        m_state = State::Cancelled;
    } else {
        m_state = result.isError ? State::Failed : State::Finished;
    }
    m_result = std::move(result);
    Q_EMIT finished(m_result);
}

} // namespace hotkernel
