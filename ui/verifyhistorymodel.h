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
    // What a reader asks first (faster? by how much? how sure?) on the left, where a narrow dock
    // still shows it; the figures it rests on after.
    enum Column {
        TimeColumn,
        VerdictColumn,
        SpeedupColumn, // "0.71x [0.65, 0.78]" (99%), or the reason of an incorrect/invalid run
        NColumn,
        ProtocolColumn, // "welch, warm"
        BaselineColumn, // us, mean ± std, as record and the leaderboard write them
        CandidateColumn,
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
    // "0.71x [0.65, 0.78]": the speedup with its 99% interval, decimals enough to tell its ends
    // apart; the reason for a verdict with no speedup ("incorrect: ..."); empty with neither.
    static QString speedupText(const VerifyRecord &record);
    // "slower 0.71x [0.65, 0.78] (99%, n 7)": a verify in one line (status bar, feed).
    static QString outcomeText(const VerifyRecord &record);

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
