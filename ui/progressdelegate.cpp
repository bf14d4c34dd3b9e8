// SPDX-License-Identifier: Apache-2.0
#include "progressdelegate.h"

#include "agentfeedmodel.h"

#include <QApplication>
#include <QStyleOptionProgressBar>

namespace hotkernel {

void ProgressDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                             const QModelIndex &index) const
{
    if (!index.data(AgentFeedModel::RunningRole).toBool()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    const double progress = index.data(AgentFeedModel::ProgressRole).toDouble();
    QStyleOptionProgressBar bar;
    bar.rect = option.rect.adjusted(2, 2, -2, -2);
    bar.palette = option.palette;
    bar.state = option.state | QStyle::State_Horizontal;
    bar.minimum = 0;
    // Indeterminate until the job knows its total: min == max draws a busy bar.
    bar.maximum = progress < 0 ? 0 : 1000;
    bar.progress = progress < 0 ? 0 : int(progress * 1000);
    bar.text = index.data(Qt::DisplayRole).toString();
    bar.textVisible = true;
    QApplication::style()->drawControl(QStyle::CE_ProgressBar, &bar, painter);
}

} // namespace hotkernel
