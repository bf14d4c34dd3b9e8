// SPDX-License-Identifier: Apache-2.0
#include "kernelfilterproxy.h"

#include "kerneltablemodel.h"

namespace hotkernel {

KernelFilterProxy::KernelFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
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

void KernelFilterProxy::setNameFilter(const QString &text)
{
    if (!m_kernels) {
        setFilterFixedString(text);
        return;
    }
    if (!filterRegularExpression().pattern().isEmpty())
        setFilterRegularExpression(QString());
    m_nameFilter = text.toCaseFolded();
    invalidateRowsFilter();
}

bool KernelFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    // Matched against the kernel name itself, not the shown text: a vanished kernel's "(gone)"
    // suffix is not part of its name.
    if (m_kernels && !sourceParent.isValid() && !m_nameFilter.isEmpty() &&
        !m_kernels->sortName(sourceRow).contains(m_nameFilter))
        return false;
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

} // namespace hotkernel
