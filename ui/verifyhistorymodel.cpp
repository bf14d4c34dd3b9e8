// SPDX-License-Identifier: Apache-2.0
#include "verifyhistorymodel.h"

#include "record/leaderboard.h"

#include <QColor>

#include <algorithm>
#include <cmath>

namespace hotkernel {

namespace {

// In microseconds with two decimals, as record and the leaderboard write them; a side that never
// ran (an incorrect verify stopped at its first pair) shows none rather than zeros.
QString meanStd(int n, double meanMs, double stdMs)
{
    if (n <= 0 || !(meanMs > 0))
        return QStringLiteral("-");
    return Leaderboard::timeCell(meanMs, stdMs);
}

// Two decimals, more when the interval's ends would read alike (1.003x [1.001, 1.005]).
int decimalsFor(double speedup, const std::optional<std::pair<double, double>> &interval)
{
    int decimals = speedup >= 10 ? 1 : 2;
    if (interval && interval->second > interval->first)
        decimals = std::max(decimals, int(std::ceil(-std::log10(interval->second - interval->first))) + 1);
    return std::clamp(decimals, 1, 4);
}

} // namespace

QString VerifyHistoryModel::speedupText(const VerifyRecord &r)
{
    if (!r.speedup)
        return r.verdict.isEmpty() || r.measured() ? QString()
                                                   : QStringLiteral("%1: %2").arg(r.verdict, r.reason);
    const int d = decimalsFor(*r.speedup, r.ci99);
    QString text = QStringLiteral("%1x").arg(*r.speedup, 0, 'f', d);
    if (r.ci99)
        text += QStringLiteral(" [%1, %2]").arg(r.ci99->first, 0, 'f', d).arg(r.ci99->second, 0, 'f', d);
    return text;
}

QString VerifyHistoryModel::outcomeText(const VerifyRecord &r)
{
    if (!r.speedup)
        return speedupText(r);
    return tr("%1 %2 (%3n %4)").arg(r.verdict, speedupText(r), r.ci99 ? tr("99%, ") : QString()).arg(r.n);
}

VerifyHistoryModel::VerifyHistoryModel(QObject *parent) : QAbstractTableModel(parent) {}

QColor VerifyHistoryModel::verdictColor(const QString &verdict)
{
    if (verdict == QLatin1String("faster"))
        return QColor(30, 150, 60);
    if (verdict == QLatin1String("slower"))
        return QColor(200, 110, 20);
    if (verdict == QLatin1String("incorrect") || verdict == QLatin1String("invalid"))
        return QColor(210, 40, 40);
    return QColor(120, 120, 120);
}

void VerifyHistoryModel::setRecords(std::vector<VerifyRecord> records)
{
    m_all = std::move(records);
    refilter();
}

void VerifyHistoryModel::addRecord(VerifyRecord record)
{
    m_all.push_back(record);
    if (m_target.isEmpty() || record.target == m_target) {
        beginInsertRows({}, int(m_shown.size()), int(m_shown.size()));
        m_shown.push_back(std::move(record));
        endInsertRows();
    }
}

void VerifyHistoryModel::setTarget(const QString &target)
{
    m_target = target;
    refilter();
}

void VerifyHistoryModel::refilter()
{
    beginResetModel();
    m_shown.clear();
    for (const VerifyRecord &r : m_all) {
        if (m_target.isEmpty() || r.target == m_target)
            m_shown.push_back(r);
    }
    endResetModel();
}

int VerifyHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_shown.size());
}

int VerifyHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant VerifyHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const VerifyRecord &r = m_shown[size_t(index.row())];
    switch (role) {
    case VerdictRole:
        return r.verdict;
    case CandidateMeanRole:
        return r.candidateMeanMs;
    case BaselineMeanRole:
        return r.baselineMeanMs;
    case RecordedRole:
        return r.recorded;
    case Qt::ForegroundRole:
        return index.column() == VerdictColumn ? QVariant(verdictColor(r.verdict)) : QVariant();
    case Qt::ToolTipRole: {
        const QString where = r.path.isEmpty() ? tr("verified in this session, not recorded") : r.path;
        if (index.column() == SpeedupColumn || index.column() == VerdictColumn)
            return QString(r.verdict + QStringLiteral(": ") + r.reason + QLatin1Char('\n') + where);
        // Who and the note are elided in a narrow dock: the tooltip says them whole.
        if (index.column() == WhoColumn && !r.who.isEmpty())
            return QString(r.who + QLatin1Char('\n') + where);
        if (index.column() == NoteColumn && !r.note.isEmpty())
            return QString(r.note + QLatin1Char('\n') + where);
        return where;
    }
    case Qt::DisplayRole:
        switch (index.column()) {
        case TimeColumn:
            return r.time.isValid() ? r.time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"))
                                    : QString();
        case NColumn:
            return r.n;
        case BaselineColumn:
            return meanStd(r.n, r.baselineMeanMs, r.baselineStdMs);
        case CandidateColumn:
            return meanStd(r.n, r.candidateMeanMs, r.candidateStdMs);
        case VerdictColumn:
            return r.recorded ? r.verdict : tr("%1 (not recorded)").arg(r.verdict);
        case SpeedupColumn:
            return speedupText(r);
        case ProtocolColumn: {
            QStringList parts;
            for (const QString &part : {r.rule, r.mode}) {
                if (!part.isEmpty())
                    parts.append(part);
            }
            return parts.join(QStringLiteral(", "));
        }
        case WhoColumn:
            return r.who;
        case NoteColumn:
            return r.note;
        }
    }
    return {};
}

QVariant VerifyHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case NColumn:
        return tr("n");
    case BaselineColumn:
        return tr("Baseline us ± std");
    case CandidateColumn:
        return tr("Candidate us ± std");
    case VerdictColumn:
        return tr("Verdict");
    case SpeedupColumn:
        return tr("Speedup [99%]");
    case ProtocolColumn:
        return tr("Protocol");
    case WhoColumn:
        return tr("Who");
    case NoteColumn:
        return tr("Note");
    }
    return {};
}

} // namespace hotkernel
