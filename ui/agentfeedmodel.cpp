// SPDX-License-Identifier: Apache-2.0
#include "agentfeedmodel.h"

#include "session/job.h"
#include "session/session.h"

#include <QColor>

namespace hotkernel {

AgentFeedModel::AgentFeedModel(Session *session, QObject *parent)
    : QAbstractTableModel(parent), m_session(session)
{
    for (Job *job : session->jobs())
        onJobStarted(job);
    connect(session, &Session::jobStarted, this, &AgentFeedModel::onJobStarted);
    m_ticker.setInterval(500);
    connect(&m_ticker, &QTimer::timeout, this, &AgentFeedModel::tick);
}

void AgentFeedModel::setReloadedRuns(const QList<RunSummary> &runs)
{
    if (m_reloadedCount > 0) {
        beginRemoveRows({}, 0, m_reloadedCount - 1);
        m_entries.remove(0, m_reloadedCount);
        m_reloadedCount = 0;
        endRemoveRows();
    }
    if (runs.isEmpty())
        return;
    beginInsertRows({}, 0, int(runs.size()) - 1);
    for (qsizetype i = 0; i < runs.size(); ++i) {
        Entry e{runs[i], nullptr, std::nullopt};
        e.run.reloaded = true;
        m_entries.insert(i, e);
    }
    m_reloadedCount = int(runs.size());
    endInsertRows();
}

void AgentFeedModel::addEvent(const QString &client, const QString &what, const QString &text)
{
    Entry e;
    e.run.client = client;
    e.run.tool = what;
    e.run.startedAt = QDateTime::currentDateTimeUtc();
    e.run.state = QStringLiteral("event");
    e.run.summary = text;
    e.event = true;
    const int row = int(m_entries.size());
    beginInsertRows({}, row, row);
    m_entries.append(std::move(e));
    endInsertRows();
}

void AgentFeedModel::onJobStarted(Job *job)
{
    if (rowForJob(job->id()) >= 0)
        return;
    const int row = int(m_entries.size());
    beginInsertRows({}, row, row);
    m_entries.append(
        Entry{RunSummary::fromJob(*job, m_session->tools().find(job->tool())), job, std::nullopt});
    endInsertRows();
    const quint64 id = job->id();
    connect(job, &Job::progressChanged, this,
            [this, id](double done, std::optional<double> total, const QString &message) {
                const int r = rowForJob(id);
                if (r < 0)
                    return;
                m_entries[r].progress =
                    total && *total > 0 ? std::optional<double>(done / *total) : std::nullopt;
                m_entries[r].run.summary = message;
                Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1));
            });
    connect(job, &Job::finished, this, [this, id] { refreshRow(id, true); });
    if (!m_ticker.isActive())
        m_ticker.start();
}

void AgentFeedModel::refreshRow(quint64 id, bool finished)
{
    const int r = rowForJob(id);
    if (r < 0)
        return;
    Entry &e = m_entries[r];
    if (finished && e.job)
        e.run = RunSummary::fromJob(*e.job, m_session->tools().find(e.job->tool()));
    Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1));
}

void AgentFeedModel::tick()
{
    bool anyRunning = false;
    for (int r = m_reloadedCount; r < m_entries.size(); ++r) {
        Entry &e = m_entries[r];
        if (e.job && e.job->state() == Job::State::Running) {
            anyRunning = true;
            e.run.durationS = e.job->elapsedSeconds();
            Q_EMIT dataChanged(index(r, DurationColumn), index(r, DurationColumn));
        }
    }
    if (!anyRunning)
        m_ticker.stop();
}

Job *AgentFeedModel::jobAt(int row) const
{
    return row >= 0 && row < m_entries.size() ? m_entries[row].job.data() : nullptr;
}

int AgentFeedModel::rowForJob(quint64 id) const
{
    for (int r = int(m_entries.size()) - 1; r >= m_reloadedCount; --r) {
        if (m_entries[r].run.id == id && !m_entries[r].run.reloaded && !m_entries[r].event)
            return r;
    }
    return -1;
}

int AgentFeedModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int AgentFeedModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AgentFeedModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_entries[index.row()];
    const bool running = e.job && e.job->state() == Job::State::Running;
    const QString state = running ? QStringLiteral("running") : e.run.state;
    switch (role) {
    case JobIdRole:
        return e.run.reloaded ? qulonglong(0) : qulonglong(e.run.id);
    case RunningRole:
        return running;
    case ProgressRole:
        return running ? e.progress.value_or(-1.0) : 1.0;
    case StateRole:
        return state;
    case ClientRole:
        return e.run.client;
    case Qt::ToolTipRole:
        return index.column() == ResultColumn || index.column() == ArgumentsColumn
                   ? data(index, Qt::DisplayRole)
                   : QVariant();
    case Qt::ForegroundRole:
        if (index.column() == ResultColumn && state == QLatin1String("failed"))
            return QColor(210, 40, 40);
        if (e.run.reloaded)
            return QColor(128, 128, 128);
        if (e.event)
            return QColor(40, 110, 200);
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case TimeColumn:
            return e.run.startedAt.toLocalTime().toString(e.run.reloaded ? QStringLiteral("MM-dd HH:mm:ss")
                                                                         : QStringLiteral("HH:mm:ss"));
        case ClientColumn:
            return e.run.client;
        case ToolColumn:
            return e.run.tool;
        case ArgumentsColumn:
            return e.run.arguments;
        case DurationColumn:
            if (e.event || (!running && e.run.durationS < 0))
                return QString();
            return QStringLiteral("%1 s").arg(running ? e.job->elapsedSeconds() : e.run.durationS, 0, 'f', 1);
        case ProgressColumn:
            if (e.event)
                return QString();
            return running ? (e.progress ? QStringLiteral("%1 %").arg(*e.progress * 100, 0, 'f', 0)
                                         : tr("running"))
                           : state;
        case ResultColumn:
            return e.run.summary;
        }
    }
    return {};
}

QVariant AgentFeedModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case ClientColumn:
        return tr("Client");
    case ToolColumn:
        return tr("Tool");
    case ArgumentsColumn:
        return tr("Arguments");
    case DurationColumn:
        return tr("Duration");
    case ProgressColumn:
        return tr("Progress");
    case ResultColumn:
        return tr("Result");
    }
    return {};
}

} // namespace hotkernel
