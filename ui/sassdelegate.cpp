// SPDX-License-Identifier: Apache-2.0
#include "sassdelegate.h"

#include "sassmodel.h"

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

} // namespace

void SassDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                         const QModelIndex &index) const
{
    const auto *model = qobject_cast<const SassModel *>(index.model());
    const bool dark = option.palette.color(QPalette::Base).lightness() < 128;
    painter->save();
    QColor background = diffColor(index.data(SassModel::DiffStatusRole).toInt(), dark);
    if (index.data(SassModel::IsHotRole).toBool()) {
        // Hot lines in red, stronger the more samples they hold.
        const double hotness = index.data(SassModel::HotnessRole).toDouble();
        background = QColor(220, 40, 30, 40 + int(120 * hotness));
    }
    if (option.state & QStyle::State_Selected)
        background = option.palette.color(QPalette::Highlight);
    if (background.isValid())
        painter->fillRect(option.rect, background);

    if (model && index.column() == SassModel::InstructionColumn) {
        if (QTextLayout *layout = model->layout(index.row(), option.font)) {
            const qreal y = option.rect.y() + (option.rect.height() - layout->boundingRect().height()) / 2;
            painter->setPen(option.state & QStyle::State_Selected
                                ? option.palette.color(QPalette::HighlightedText)
                                : option.palette.color(QPalette::Text));
            painter->setClipRect(option.rect);
            layout->draw(painter, QPointF(option.rect.x() + 4, y));
        }
    } else {
        const QString text = index.data(Qt::DisplayRole).toString();
        painter->setPen(option.palette.color(option.state & QStyle::State_Selected ? QPalette::HighlightedText
                                                                                   : QPalette::Text));
        const int align = index.column() >= SassModel::StallSamplesColumn ? Qt::AlignRight : Qt::AlignLeft;
        painter->drawText(option.rect.adjusted(4, 0, -4, 0), align | Qt::AlignVCenter, text);
    }
    painter->restore();
}

} // namespace hotkernel
