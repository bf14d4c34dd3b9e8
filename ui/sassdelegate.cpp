// SPDX-License-Identifier: Apache-2.0
#include "sassdelegate.h"

#include "sassmodel.h"

#include <QAbstractProxyModel>
#include <QPainter>

namespace hotkernel {

namespace {

QColor diffColor(int status, bool dark)
{
    switch (status) {
    case SassModel::Removed:
        return dark ? QColor(110, 40, 40) : QColor(255, 220, 220);
    case SassModel::Added:
        return dark ? QColor(40, 90, 50) : QColor(215, 250, 215);
    case SassModel::Changed:
        return dark ? QColor(100, 85, 30) : QColor(255, 243, 200);
    case SassModel::Filler:
        return dark ? QColor(60, 60, 60) : QColor(238, 238, 238);
    }
    return {};
}

// The SassModel behind a view's model (the main table sorts through a proxy) and the row there.
const SassModel *sourceOf(const QModelIndex &index, int *row)
{
    QModelIndex at = index;
    while (const auto *proxy = qobject_cast<const QAbstractProxyModel *>(at.model()))
        at = proxy->mapToSource(at);
    *row = at.row();
    return qobject_cast<const SassModel *>(at.model());
}

} // namespace

void SassDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                         const QModelIndex &index) const
{
    int row = -1;
    const SassModel *model = sourceOf(index, &row);
    const bool dark = option.palette.color(QPalette::Base).lightness() < 128;
    const bool selected = option.state & QStyle::State_Selected;
    painter->save();
    // The table's style has already filled a selected cell with the full highlight colour (its
    // row panel); on that, the heat tint and the highlighter's orange immediates were unreadable in
    // the light theme. Start from the plain base and draw the selection as a wash below.
    if (selected)
        painter->fillRect(option.rect, option.palette.color(QPalette::Base));
    QColor background = diffColor(index.data(SassModel::DiffStatusRole).toInt(), dark);
    const double hotness = index.data(SassModel::HotnessRole).toDouble();
    const bool hot = index.data(SassModel::IsHotRole).toBool();
    if (hot) {
        // A tint light enough that the highlighter's colours stay readable on it (the strength is
        // in the samples column's bar); dark themes get a deep red instead of a pale one.
        background =
            dark ? QColor(140, 30, 25, 70 + int(110 * hotness)) : QColor(255, 90, 60, 30 + int(70 * hotness));
    }
    if (background.isValid())
        painter->fillRect(option.rect, background);
    if (index.column() == SassModel::StallSamplesColumn && hotness > 0) {
        QRect bar = option.rect.adjusted(2, 3, -2, -3);
        bar.setWidth(std::max(2, int(bar.width() * hotness)));
        painter->fillRect(bar, dark ? QColor(235, 90, 60, 170) : QColor(220, 50, 30, 130));
    }
    if (selected) {
        // The selection is an outline and a light wash, so the selected line keeps its heat.
        QColor wash = option.palette.color(QPalette::Highlight);
        wash.setAlpha(hot ? 60 : 110);
        painter->fillRect(option.rect, wash);
        painter->setPen(QPen(option.palette.color(QPalette::Highlight), 1));
        painter->drawLine(option.rect.topLeft(), option.rect.topRight());
        painter->drawLine(option.rect.bottomLeft(), option.rect.bottomRight());
    }
    const QColor text = option.palette.color(QPalette::Text);

    if (model && index.column() == SassModel::InstructionColumn) {
        if (QTextLayout *layout = model->layout(row, option.font)) {
            const qreal y = option.rect.y() + (option.rect.height() - layout->boundingRect().height()) / 2;
            painter->setPen(text);
            painter->setClipRect(option.rect);
            layout->draw(painter, QPointF(option.rect.x() + 4, y));
        }
    } else {
        const QString display = index.data(Qt::DisplayRole).toString();
        painter->setPen(text);
        const int align =
            index.column() == SassModel::StallSamplesColumn || index.column() == SassModel::ExecutedColumn
                ? Qt::AlignRight
                : Qt::AlignLeft;
        painter->drawText(option.rect.adjusted(4, 0, -4, 0), align | Qt::AlignVCenter, display);
    }
    painter->restore();
}

} // namespace hotkernel
