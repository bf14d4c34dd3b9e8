// SPDX-License-Identifier: Apache-2.0
// A bar in the cell, as wide as the row's share (ShareRole, 0..1), under the text. GUI thread.
#pragma once

#include <QStyledItemDelegate>

namespace hotkernel {

class ShareBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit ShareBarDelegate(int shareRole, QObject *parent = nullptr);
    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;

private:
    int m_shareRole;
};

} // namespace hotkernel
