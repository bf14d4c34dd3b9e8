// SPDX-License-Identifier: Apache-2.0
// Paints a SassModel row: diff and hot-line backgrounds, and the instruction column from the
// model's cached, highlighted QTextLayout. GUI thread.
#pragma once

#include <QStyledItemDelegate>

namespace hotkernel {

class SassDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
};

} // namespace hotkernel
