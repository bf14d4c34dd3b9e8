// SPDX-License-Identifier: Apache-2.0
// A progress bar in the cell for running jobs (busy while the total is unknown), text otherwise.
// GUI thread.
#pragma once

#include <QStyledItemDelegate>

namespace hotkernel {

class ProgressDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
};

} // namespace hotkernel
