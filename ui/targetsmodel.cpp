// SPDX-License-Identifier: Apache-2.0
#include "targetsmodel.h"

#include <QDir>
#include <QFileInfo>

namespace hotkernel {

TargetsModel::TargetsModel(QObject *parent) : QAbstractTableModel(parent) {}

QList<TargetInfo> TargetsModel::scan(const QString &root)
{
    QList<TargetInfo> targets;
    const QDir dir(root);
    const QLatin1String suffix("_baseline.py");
    const auto files = dir.entryList({QStringLiteral("*_baseline.py")}, QDir::Files, QDir::Name);
    for (const QString &file : files) {
        TargetInfo t;
        t.name = file.left(file.size() - suffix.size());
        t.baselinePath = dir.filePath(file);
        const QString candidate = dir.filePath(t.name + QStringLiteral("_candidate.py"));
        if (QFileInfo::exists(candidate))
            t.candidatePath = candidate;
        targets.append(t);
    }
    return targets;
}

void TargetsModel::refresh(const QString &root, const QList<RunSummary> &runs,
                           const std::vector<VerifyRecord> &records)
{
    beginResetModel();
    m_targets = scan(root);
    for (TargetInfo &t : m_targets) {
        const QString baselineFile = QFileInfo(t.baselinePath).fileName();
        const QString candidateFile = t.name + QStringLiteral("_candidate.py");
        for (auto it = runs.crbegin(); it != runs.crend(); ++it) {
            // Which script it timed is said: the column sits beside Candidate, and a baseline's
            // time read there as the candidate's (issue 45).
            if (it->kind != ToolSpec::ResultKind::Bench)
                continue;
            if (it->arguments.contains(candidateFile)) {
                t.latestBench = tr("candidate: %1").arg(it->summary);
                break;
            }
            if (it->arguments.contains(baselineFile)) {
                t.latestBench = tr("baseline: %1").arg(it->summary);
                break;
            }
        }
        for (const VerifyRecord &r : records) {
            if (r.target != t.name || !r.recorded)
                continue;
            ++t.records;
            // Only a correct, faster verify is a best (a slower one has a speedup below 1 too).
            if (r.verdict == QLatin1String("faster") && r.speedup &&
                (!t.bestSpeedup || *r.speedup > *t.bestSpeedup)) {
                t.bestSpeedup = r.speedup;
                t.bestWho = r.who;
            }
        }
    }
    endResetModel();
}

int TargetsModel::rowForTarget(const QString &name) const
{
    for (int r = 0; r < m_targets.size(); ++r) {
        if (m_targets[r].name == name)
            return r;
    }
    return -1;
}

int TargetsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_targets.size());
}

int TargetsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TargetsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TargetInfo &t = m_targets[index.row()];
    switch (role) {
    case TargetNameRole:
        return t.name;
    case BaselinePathRole:
        return t.baselinePath;
    case CandidatePathRole:
        return t.candidatePath;
    case Qt::ToolTipRole:
        return index.column() == LatestBenchColumn ? t.latestBench : t.baselinePath;
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return t.name;
        case CandidateColumn:
            return t.candidatePath.isEmpty() ? tr("missing") : QFileInfo(t.candidatePath).fileName();
        case LatestBenchColumn:
            return t.latestBench;
        case RecordsColumn:
            return t.records;
        case BestColumn:
            return t.bestSpeedup ? QStringLiteral("%1x (%2)").arg(*t.bestSpeedup, 0, 'f', 3).arg(t.bestWho)
                                 : QString();
        }
    }
    return {};
}

QVariant TargetsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Target");
    case CandidateColumn:
        return tr("Candidate");
    case LatestBenchColumn:
        return tr("Latest bench");
    case RecordsColumn:
        return tr("Records");
    case BestColumn:
        return tr("Best");
    }
    return {};
}

} // namespace hotkernel
