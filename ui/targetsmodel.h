// SPDX-License-Identifier: Apache-2.0
// The targets of the working directory (<name>_baseline.py with its <name>_candidate.py), each with
// its latest bench and its leaderboard standing. GUI thread.
#pragma once

#include "record/verifyrecord.h"
#include "session/sessionstore.h"

#include <QAbstractTableModel>

namespace hotkernel {

struct TargetInfo
{
    QString name;
    QString baselinePath;  // absolute
    QString candidatePath; // absolute; empty when the pair is incomplete
    QString latestBench;   // summary of the latest bench run on either script
    int records = 0;       // recorded verifies (leaderboard rows)
    std::optional<double> bestSpeedup;
    QString bestWho;
};

class TargetsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, CandidateColumn, LatestBenchColumn, RecordsColumn, BestColumn, ColumnCount };
    enum Role {
        TargetNameRole = Qt::UserRole + 1,
        BaselinePathRole,
        CandidatePathRole,
    };

    explicit TargetsModel(QObject *parent = nullptr);

    // Scans root for target scripts; runs and records fill the bench and leaderboard columns.
    void refresh(const QString &root, const QList<RunSummary> &runs,
                 const std::vector<VerifyRecord> &records);
    const QList<TargetInfo> &targets() const { return m_targets; }
    int rowForTarget(const QString &name) const;

    static QList<TargetInfo> scan(const QString &root);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<TargetInfo> m_targets;
};

} // namespace hotkernel
