// SPDX-License-Identifier: Apache-2.0
#include "sharebardelegate.h"

#include <QPainter>

namespace hotkernel {

ShareBarDelegate::ShareBarDelegate(int shareRole, QObject *parent)
    : QStyledItemDelegate(parent), m_shareRole(shareRole)
{}

void ShareBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                             const QModelIndex &index) const
{
    const double share = std::clamp(index.data(m_shareRole).toDouble(), 0.0, 1.0);
    if (share > 0) {
        QRect bar = option.rect.adjusted(2, 3, -2, -3);
        bar.setWidth(int(bar.width() * share));
        QColor color = option.palette.color(QPalette::Highlight);
        color.setAlpha(110);
        painter->fillRect(bar, color);
    }
    QStyledItemDelegate::paint(painter, option, index);
}

} // namespace hotkernel
