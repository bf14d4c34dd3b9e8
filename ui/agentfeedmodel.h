// SPDX-License-Identifier: Apache-2.0
// Every job of the session as it happens, whoever started it (window, cli, an agent), in order,
// after the runs reloaded from the saved session. GUI thread.
#pragma once

#include "session/sessionstore.h"

#include <QAbstractTableModel>
#include <QPointer>
#include <QTimer>

#include <optional>

namespace hotkernel {

class Job;
class Session;

class AgentFeedModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // The step and the outcome right after the tool, where the narrowest dock still shows them;
    // the arguments, long and least read, last.
    enum Column {
        TimeColumn,
        ClientColumn,
        ToolColumn,
        ProgressColumn, // the step a running job is at ("pair 3 of 7"), with its bar
        ResultColumn, // the outcome: a verify's verdict and speedup, a profile's top kernel, an error's start
        DurationColumn,
        ArgumentsColumn,
        ColumnCount
    };
    enum Role {
        JobIdRole = Qt::UserRole + 1, // qulonglong; 0 for reloaded runs
        RunningRole,                  // bool
        ProgressRole,                 // 0..1, or -1 when indeterminate
        StateRole,                    // "running", "finished", "failed", "cancelled", "event"
        ClientRole,
    };

    explicit AgentFeedModel(Session *session, QObject *parent = nullptr);

    void setReloadedRuns(const QList<RunSummary> &runs);
    // A line about an agent rather than a job (attached, disconnected), in time order with the jobs.
    void addEvent(const QString &client, const QString &what, const QString &text);
    Job *jobAt(int row) const;
    // The summary of a row (a job, a reloaded run or an event); row must be valid.
    const RunSummary &runAt(int row) const { return m_entries[row].run; }
    int rowForJob(quint64 id) const;
    // The row of the newest job still running, or -1 (what Cancel stops when no running row is selected).
    int latestRunningRow() const;
    // What a finished call came to, in a few words: "slower 0.71x [0.65, 0.78] (99%, n 7)" for a
    // verify, "top: _rmsnorm_kernel 62%" for a report, the first words of an error; else summary.
    // value: the result's typed value (ToolResult::value, RunSummary::value).
    static QString outcome(bool isError, const std::any &value, const QString &summary);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Entry
    {
        RunSummary run;
        QPointer<Job> job; // null once finished jobs are pruned; run keeps the summary
        std::optional<double> progress;
        bool event = false; // an agent attached or left; no job
        QString outcome;    // outcome() once finished
        QString verdict;    // a verify's, for its colour
    };
    void setOutcome(Entry &e) const;
    void onJobStarted(Job *job);
    void refreshRow(quint64 id, bool finished);
    void tick();

    Session *m_session;
    QList<Entry> m_entries;
    int m_reloadedCount = 0;
    QTimer m_ticker; // running durations
};

} // namespace hotkernel
