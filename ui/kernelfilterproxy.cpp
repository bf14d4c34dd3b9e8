// SPDX-License-Identifier: Apache-2.0
#include "kernelfilterproxy.h"

#include "kerneltablemodel.h"

#include <QRegularExpression>

namespace hotkernel {

KernelFilterProxy::KernelFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(KernelTableModel::NameColumn);
    setSortRole(KernelTableModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

void KernelFilterProxy::setSourceModel(QAbstractItemModel *model)
{
    m_kernels = qobject_cast<KernelTableModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

void KernelFilterProxy::sort(int column, Qt::SortOrder order)
{
    if (!m_kernels) {
        QSortFilterProxyModel::sort(column, order);
        return;
    }
    // The proxy keeps the source's order (its own sort column stays -1) and follows the
    // model's layoutChanged; the filter is applied on top of the sorted rows.
    QSortFilterProxyModel::sort(-1, Qt::AscendingOrder); // a no-op after the first call
    m_kernels->sort(column, order);
}

const KernelFilterProxy::FixedFilter &KernelFilterProxy::fixedFilter() const
{
    const QRegularExpression re = filterRegularExpression();
    if (re.pattern() == m_fixed.pattern)
        return m_fixed;
    m_fixed = FixedFilter{re.pattern()};
    // QRegularExpression::escape() puts a backslash before every character but [A-Za-z0-9_]
    // (NUL becomes a backslash and '0'). Undo that; any other unescaped character means a real
    // expression.
    QString text;
    const QString &p = m_fixed.pattern;
    for (qsizetype i = 0; i < p.size(); ++i) {
        const QChar c = p.at(i);
        if (c == QLatin1Char('\\') && i + 1 < p.size()) {
            const QChar next = p.at(++i);
            text.append(next == QLatin1Char('0') ? QChar(0) : next);
        } else if (c.isLetterOrNumber() || c == QLatin1Char('_')) {
            text.append(c);
        } else {
            return m_fixed; // not literal
        }
    }
    if (QRegularExpression::escape(text) != p)
        return m_fixed;
    m_fixed.literal = true;
    m_fixed.caseFolded = re.patternOptions().testFlag(QRegularExpression::CaseInsensitiveOption);
    m_fixed.needle = m_fixed.caseFolded ? text.toCaseFolded() : text;
    return m_fixed;
}

bool KernelFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!m_kernels || filterKeyColumn() != KernelTableModel::NameColumn || sourceParent.isValid())
        return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
    const FixedFilter &f = fixedFilter();
    if (!f.literal)
        return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
    if (f.needle.isEmpty())
        return true;
    // The name column shows the kernel name ("... (gone)" appended for vanished kernels, which a
    // name filter need not match).
    return f.caseFolded ? m_kernels->sortName(sourceRow).contains(f.needle)
                        : m_kernels->kernelName(sourceRow).contains(f.needle);
}

} // namespace hotkernel
