// SPDX-License-Identifier: Apache-2.0
#include "heatscrollbar.h"

#include <QPainter>
#include <QStyleOptionSlider>

#include <algorithm>

namespace hotkernel {

HeatScrollBar::HeatScrollBar(QWidget *parent) : QScrollBar(Qt::Vertical, parent) {}

void HeatScrollBar::setMarks(std::vector<Mark> marks)
{
    m_marks = std::move(marks);
    update();
}

void HeatScrollBar::paintEvent(QPaintEvent *event)
{
    QScrollBar::paintEvent(event);
    if (m_marks.empty())
        return;
    QStyleOptionSlider option;
    initStyleOption(&option);
    // The groove is where positions map to (the arrows, when the style has them, are not).
    const QRect groove =
        style()->subControlRect(QStyle::CC_ScrollBar, &option, QStyle::SC_ScrollBarGroove, this);
    QPainter painter(this);
    for (const Mark &m : m_marks) {
        const int y = groove.top() + int(m.position * (groove.height() - 3));
        QColor color(230, 60, 30);
        color.setAlphaF(0.45 + 0.55 * std::clamp(m.heat, 0.0, 1.0));
        painter.fillRect(QRect(groove.left() + 1, y, groove.width() - 2, 3), color);
    }
}

} // namespace hotkernel
