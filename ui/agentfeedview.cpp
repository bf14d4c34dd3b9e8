// SPDX-License-Identifier: Apache-2.0
#include "agentfeedview.h"

#include "agentfeedmodel.h"
#include "base/job.h"
#include "progressdelegate.h"
#include "resultdetailsdialog.h"
#include "session/session.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace hotkernel {

AgentFeedView::AgentFeedView(Session *session, AgentFeedModel *model, QWidget *parent)
    : QWidget(parent), m_session(session), m_model(model), m_table(new QTableView(this)),
      m_cancel(new QPushButton(tr("Cancel job"), this))
{
    m_table->setModel(model);
    m_table->setItemDelegateForColumn(AgentFeedModel::ProgressColumn, new ProgressDelegate(m_table));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    // Sized to their usual text ("12-02 11:52:44", "claude-code", "torch_trace", "12.3 s") so that the
    // progress bar and the start of the result show in the default dock.
    const QFontMetrics metrics = m_table->fontMetrics();
    m_table->setColumnWidth(AgentFeedModel::TimeColumn,
                            metrics.horizontalAdvance(QStringLiteral("00-00 00:00:00")) + 16);
    m_table->setColumnWidth(AgentFeedModel::ClientColumn,
                            metrics.horizontalAdvance(QStringLiteral("claude-code")) + 16);
    m_table->setColumnWidth(AgentFeedModel::ToolColumn,
                            metrics.horizontalAdvance(QStringLiteral("torch_trace")) + 16);
    // The outcome ("slower 0.71x [0.65, 0.78] (99%, n 7)") and the step ("pair 3 of 7 · 43%")
    // whole; the arguments take what is left.
    m_table->setColumnWidth(
        AgentFeedModel::ResultColumn,
        metrics.horizontalAdvance(QStringLiteral("inconclusive 1.003x [0.998, 1.008] (99%, n 30)")) + 16);
    m_table->setColumnWidth(AgentFeedModel::ProgressColumn,
                            metrics.horizontalAdvance(QStringLiteral("pair 13 of 30 · 43%")) + 16);
    m_table->setColumnWidth(AgentFeedModel::DurationColumn,
                            metrics.horizontalAdvance(QStringLiteral("Duration")) + 24);
    m_table->setColumnWidth(AgentFeedModel::ArgumentsColumn, 180);
    m_table->setTabKeyNavigation(false); // Tab moves to the next widget, not the next cell
    m_cancel->setToolTip(tr("Cancel the selected running job, else the newest running one (kills its "
                            "processes), as an agent's notifications/cancelled does"));
    connect(m_cancel, &QPushButton::clicked, this, &AgentFeedView::cancelSelected);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &AgentFeedView::updateButtons);
    connect(model, &QAbstractItemModel::dataChanged, this, &AgentFeedView::updateButtons);
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex &index) { openDetails(index.row()); });
    // Follow the feed: new jobs scroll into view.
    connect(model, &QAbstractItemModel::rowsInserted, m_table, [this] {
        m_table->scrollToBottom();
        updateButtons();
    });

    auto *hint =
        new QLabel(tr("Every tool call in this session, from the window, the CLI and agents, in order. "
                      "Double-click a row for its whole result."),
                   this);
    hint->setWordWrap(true);
    auto *bar = new QHBoxLayout;
    bar->addWidget(hint, 1);
    bar->addWidget(m_cancel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);
    updateButtons();
}

bool AgentFeedView::cancelSelected()
{
    QModelIndex target = m_table->selectionModel()->currentIndex();
    if (!target.isValid() || !target.data(AgentFeedModel::RunningRole).toBool())
        target = m_model->index(m_model->latestRunningRow(), 0);
    if (!target.isValid())
        return false;
    m_session->cancel(target.data(AgentFeedModel::JobIdRole).toULongLong());
    return true;
}

QDialog *AgentFeedView::openDetails(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return nullptr;
    const RunSummary &run = m_model->runAt(row);
    const Job *job = m_model->jobAt(row);
    QString title = run.tool.isEmpty() ? run.client : QStringLiteral("%1 (%2)").arg(run.tool, run.client);
    QString headline =
        QStringLiteral("<b>%1</b> %2").arg(run.state.toHtmlEscaped(), run.summary.toHtmlEscaped());
    QStringList text{tr("arguments: %1").arg(run.arguments),
                     run.startedAt.isValid() && run.durationS >= 0
                         ? tr("started: %1, %2 s")
                               .arg(run.startedAt.toLocalTime().toString(Qt::ISODate))
                               .arg(run.durationS, 0, 'f', 1)
                         : tr("started: not recorded"),
                     QString()};
    Json structured;
    if (job) {
        const ToolResult &result = job->result();
        text.append(result.text.isEmpty() ? job->progressMessage() : result.text);
        structured = Json{{"arguments", job->arguments()},
                          {"isError", result.isError},
                          {"structuredContent", result.structured}};
    } else if (!run.details.is_null()) {
        text.append(run.detailsText);
        structured = run.details;
    } else {
        text.append(run.summary);
        if (run.reloaded)
            text.append(tr("\n(from an earlier session: only this summary was kept)"));
    }
    auto *dialog = new ResultDetailsDialog(title, headline, text.join(QLatin1Char('\n')), structured, this);
    dialog->show();
    return dialog;
}

void AgentFeedView::updateButtons()
{
    QModelIndex target = m_table->selectionModel()->currentIndex();
    if (!target.isValid() || !target.data(AgentFeedModel::RunningRole).toBool())
        target = m_model->index(m_model->latestRunningRow(), 0);
    m_cancel->setEnabled(target.isValid());
    m_cancel->setText(target.isValid() ? tr("Cancel %1").arg(m_model->runAt(target.row()).tool)
                                       : tr("Cancel job"));
}

} // namespace hotkernel
