// SPDX-License-Identifier: Apache-2.0
#include "kernelfilterproxy.h"

#include "kerneltablemodel.h"

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
    m_kernels = qobject_cast<const KernelTableModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

bool KernelFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const KernelTableModel *model = m_kernels;
    switch (left.column()) {
    case KernelTableModel::NameColumn:
        if (model)
            return model->sortName(left.row()) < model->sortName(right.row());
        return QSortFilterProxyModel::lessThan(left, right);
    case KernelTableModel::GridColumn:
    case KernelTableModel::BlockColumn:
    case KernelTableModel::BoundColumn:
        return QSortFilterProxyModel::lessThan(left, right);
    default:
        if (!model)
            return QSortFilterProxyModel::lessThan(left, right);
        return model->sortValue(left.row(), left.column()) < model->sortValue(right.row(), right.column());
    }
}

} // namespace hotkernel
