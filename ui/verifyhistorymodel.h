// SPDX-License-Identifier: Apache-2.0
// Every verify and record of the selected target, oldest first. GUI thread.
#pragma once

#include "record/verifyrecord.h"

#include <QAbstractTableModel>

namespace hotkernel {

class VerifyHistoryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        TimeColumn,
        NColumn,
        BaselineColumn,
        CandidateColumn,
        VerdictColumn,
        SpeedupColumn,
        WhoColumn,
        NoteColumn,
        ColumnCount
    };
    enum Role {
        VerdictRole = Qt::UserRole + 1,
        CandidateMeanRole, // ms
        BaselineMeanRole,  // ms
        RecordedRole,
    };

    explicit VerifyHistoryModel(QObject *parent = nullptr);

    // All records (every target); the model shows those of target (all when empty).
    void setRecords(std::vector<VerifyRecord> records);
    void addRecord(VerifyRecord record);
    void setTarget(const QString &target);
    QString target() const { return m_target; }
    const std::vector<VerifyRecord> &shown() const { return m_shown; }
    const std::vector<VerifyRecord> &all() const { return m_all; }
    static QColor verdictColor(const QString &verdict);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void refilter();

    std::vector<VerifyRecord> m_all;
    std::vector<VerifyRecord> m_shown;
    QString m_target;
};

} // namespace hotkernel
