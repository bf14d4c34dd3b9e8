// SPDX-License-Identifier: Apache-2.0
#include "agentfeedmodel.h"

#include "base/job.h"
#include "inspect/leadingkernel.h"
#include "kerneltablemodel.h"
#include "record/verifyrecord.h"
#include "session/session.h"
#include "verifyhistorymodel.h"

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

QString AgentFeedModel::outcome(bool isError, const std::any &value, const QString &summary)
{
    constexpr int kWords = 90; // characters: the start of an error says what went wrong
    if (isError) {
        const QString first = summary.section(QLatin1Char('\n'), 0, 0).trimmed();
        return first.size() > kWords ? first.left(kWords - 1) + QStringLiteral("…") : first;
    }
    if (const auto *verify = std::any_cast<VerifyRecord>(&value))
        return VerifyHistoryModel::outcomeText(*verify);
    if (const auto *top = std::any_cast<LeadingKernel>(&value)) {
        const QString name = KernelTableModel::shortName(top->name);
        if (top->share)
            return tr("top: %1 %2%").arg(name).arg(*top->share * 100, 0, 'f', 0);
        return tr("top: %1").arg(name);
    }
    return summary;
}

void AgentFeedModel::setOutcome(Entry &e) const
{
    const std::any &value = e.job ? e.job->result().value : e.run.value;
    const bool isError = e.job ? e.job->result().isError : e.run.state == QLatin1String("failed");
    e.outcome = e.event ? e.run.summary : outcome(isError, value, e.run.summary);
    const auto *verify = std::any_cast<VerifyRecord>(&value);
    e.verdict = verify ? verify->verdict : QString();
}

int AgentFeedModel::latestRunningRow() const
{
    for (int r = int(m_entries.size()) - 1; r >= m_reloadedCount; --r) {
        if (m_entries[r].job && m_entries[r].job->state() == Job::State::Running)
            return r;
    }
    return -1;
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
        setOutcome(e);
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
    e.outcome = text;
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
    Entry e{RunSummary::fromJob(*job, m_session->tools().find(job->tool())), job, std::nullopt};
    if (job->state() != Job::State::Running)
        setOutcome(e);
    m_entries.append(std::move(e));
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
    if (finished && e.job) {
        e.run = RunSummary::fromJob(*e.job, m_session->tools().find(e.job->tool()));
        setOutcome(e);
    }
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
        if (index.column() == ResultColumn)
            return e.run.summary.isEmpty() ? data(index, Qt::DisplayRole) : QVariant(e.run.summary);
        return index.column() == ArgumentsColumn ? data(index, Qt::DisplayRole) : QVariant();
    case Qt::ForegroundRole:
        // Colours that read on both themes' bases; earlier sessions' rows keep the text colour
        // (grey on black was unreadable) and say their date instead.
        if (index.column() == ResultColumn && state == QLatin1String("failed"))
            return QColor(210, 40, 40);
        if (index.column() == ResultColumn && !e.verdict.isEmpty())
            return VerifyHistoryModel::verdictColor(e.verdict);
        if (e.event)
            return QColor(60, 130, 220);
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
        case ProgressColumn: {
            if (e.event)
                return QString();
            if (!running)
                return state;
            // The step in words first ("pair 3 of 7"), then how far.
            const QString step = e.job->progressMessage();
            const QString percent =
                e.progress ? QStringLiteral("%1%").arg(*e.progress * 100, 0, 'f', 0) : QString();
            if (step.isEmpty())
                return percent.isEmpty() ? tr("running") : percent;
            return percent.isEmpty() ? step : QStringLiteral("%1 · %2").arg(step, percent);
        }
        case ResultColumn:
            return running ? QString() : e.outcome;
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
        return tr("Outcome");
    }
    return {};
}

} // namespace hotkernel
