// SPDX-License-Identifier: Apache-2.0
// A vertical scroll bar with marks where the hot lines are (as editors mark search hits), so a long
// listing shows at a glance where its samples sit and a click on a mark's place goes there.
// GUI thread.
#pragma once

#include <QScrollBar>

#include <vector>

namespace hotkernel {

class HeatScrollBar : public QScrollBar
{
    Q_OBJECT
public:
    struct Mark
    {
        double position = 0; // 0..1 over the whole document
        double heat = 0;     // 0..1, the strongest the most opaque
    };

    explicit HeatScrollBar(QWidget *parent = nullptr);
    void setMarks(std::vector<Mark> marks);
    const std::vector<Mark> &marks() const { return m_marks; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::vector<Mark> m_marks;
};

} // namespace hotkernel
