// SPDX-License-Identifier: Apache-2.0
#include "kerneltableview.h"

#include "kernelfilterproxy.h"
#include "kerneltablemodel.h"
#include "sharebardelegate.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace hotkernel {

KernelTableView::KernelTableView(QWidget *parent)
    : QWidget(parent), m_model(new KernelTableModel(this)), m_proxy(new KernelFilterProxy(this)),
      m_table(new QTableView(this)), m_filter(new QLineEdit(this)), m_report(new QComboBox(this)),
      m_before(new QComboBox(this)), m_empty(new QLabel(this)), m_pinned(new QTableView(m_table)),
      m_totals(new QLabel(this)), m_details(new QLabel(this))
{
    m_proxy->setSourceModel(m_model);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    // Nsight Compute's first question, which kernel weighs most, answered by the first row; the
    // header's arrow says so. (Time would say the same, but a comparison of one-call profiles
    // hides it, arrow and all.)
    m_table->sortByColumn(KernelTableModel::ShareColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, &KernelTableView::showContextMenu);
    auto *copy = new QAction(tr("Copy name"), m_table);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, [this] {
        if (const QString name = selectedKernel(); !name.isEmpty())
            QApplication::clipboard()->setText(name);
    });
    m_table->addAction(copy);
    m_table->setWordWrap(false);
    m_table->setTabKeyNavigation(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->setItemDelegateForColumn(KernelTableModel::ShareColumn,
                                      new ShareBarDelegate(KernelTableModel::ShareRole, m_table));
    m_table->horizontalHeader()->setStretchLastSection(false);
    // Right: the function name comes first and stays whole; what a narrow column loses is the
    // end of the distinctive word (the tooltip has the full name).
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setColumnWidth(KernelTableModel::HintColumn, 260);
    m_table->viewport()->installEventFilter(this);
    m_filter->setPlaceholderText(tr("Filter kernels by name"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &KernelFilterProxy::setNameFilter);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    Q_EMIT kernelSelected(current.data(KernelTableModel::KernelNameRole).toString());
            });
    m_report->setToolTip(tr("The report shown (after, in a comparison)"));
    m_before->setToolTip(
        tr("Compare: the report before the change; each kernel's Change is after / before - 1, "
           "kernels only before are removed, kernels only after are added"));
    auto refresh = [this] { showReports(m_report->currentIndex(), m_before->currentIndex() - 1); };
    connect(m_report, &QComboBox::activated, this, refresh);
    connect(m_before, &QComboBox::activated, this, refresh);

    // The name column pinned (Qt's frozen-column pattern): a second view over the table's left
    // edge showing only the names, sharing model, selection and vertical scrolling.
    m_pinned->setModel(m_proxy);
    m_pinned->setSelectionModel(m_table->selectionModel());
    m_pinned->setFocusPolicy(Qt::NoFocus);
    m_pinned->verticalHeader()->hide();
    m_pinned->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_pinned->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_pinned->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_pinned->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_pinned->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_pinned->setWordWrap(false);
    m_pinned->setTextElideMode(Qt::ElideRight);
    m_pinned->setSortingEnabled(true);
    m_pinned->horizontalHeader()->setSortIndicator(KernelTableModel::ShareColumn, Qt::DescendingOrder);
    m_pinned->setContextMenuPolicy(Qt::CustomContextMenu);
    m_pinned->setStyleSheet(QStringLiteral("QTableView { border: none; }"));
    connect(m_pinned, &QWidget::customContextMenuRequested, this, [this](const QPoint &p) {
        showContextMenu(m_table->viewport()->mapFromGlobal(m_pinned->viewport()->mapToGlobal(p)));
    });
    connect(m_pinned->verticalScrollBar(), &QAbstractSlider::valueChanged, m_table->verticalScrollBar(),
            &QAbstractSlider::setValue);
    connect(m_table->verticalScrollBar(), &QAbstractSlider::valueChanged, m_pinned->verticalScrollBar(),
            &QAbstractSlider::setValue);
    connect(m_table->horizontalHeader(), &QHeaderView::sectionResized, this,
            [this](int section, int, int size) {
                if (section == KernelTableModel::NameColumn) {
                    m_pinned->setColumnWidth(KernelTableModel::NameColumn, size);
                    updatePinnedGeometry();
                }
            });
    connect(m_table->horizontalHeader(), &QHeaderView::sortIndicatorChanged, m_pinned->horizontalHeader(),
            &QHeaderView::setSortIndicator);
    m_pinned->raise();

    m_totals->setObjectName(QStringLiteral("kernelTotals"));
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setObjectName(QStringLiteral("kernelDetails"));
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &KernelTableView::updateDetails);

    m_empty->setWordWrap(true);
    m_empty->setText(
        tr("No kernel report yet. Run profile, trace or torch_trace (or put ncu/nsys CSV exports "
           "under profiles/) to fill this table."));
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 2);
    // Reads left to right as the change went: before -> after.
    bar->addWidget(m_before, 1);
    bar->addWidget(new QLabel(QStringLiteral("→"), this));
    bar->addWidget(m_report, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_empty);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_totals);
    layout->addWidget(m_details);
    setTables({});
}

void KernelTableView::setTables(std::vector<KernelTable> tables)
{
    m_tables = std::move(tables);
    m_report->clear();
    m_before->clear();
    m_before->addItem(tr("(compare with...)"));
    for (const KernelTable &t : m_tables) {
        const QString label = QStringLiteral("%1 (%2)").arg(QFileInfo(t.path).fileName(), t.source);
        m_report->addItem(label);
        m_before->addItem(label);
    }
    m_empty->setVisible(m_tables.empty());
    m_report->setEnabled(!m_tables.empty());
    m_before->setEnabled(m_tables.size() > 1);
    showReports(m_tables.empty() ? -1 : 0);
}

void KernelTableView::showReports(int after, int before)
{
    if (after < 0 || size_t(after) >= m_tables.size()) {
        m_model->setTable({});
    } else if (before >= 0 && size_t(before) < m_tables.size() && before != after) {
        m_model->setDelta(m_tables[size_t(before)], m_tables[size_t(after)]);
    } else {
        m_model->setTable(m_tables[size_t(after)]);
    }
    if (after >= 0)
        m_report->setCurrentIndex(after);
    m_before->setCurrentIndex(before + 1);
    updateColumns();
    updateTotals();
    updateDetails();
    Q_EMIT reportChanged();
}

QList<int> KernelTableView::nsightColumns()
{
    return {KernelTableModel::ShareColumn,   KernelTableModel::TotalColumn,
            KernelTableModel::AverageColumn, KernelTableModel::BeforeAverageColumn,
            KernelTableModel::DeltaColumn,   KernelTableModel::DramColumn,
            KernelTableModel::SmColumn,      KernelTableModel::OccupancyColumn,
            KernelTableModel::BoundColumn};
}

void KernelTableView::updateColumns()
{
    m_table->setColumnHidden(KernelTableModel::BeforeAverageColumn, !m_model->isDelta());
    m_table->setColumnHidden(KernelTableModel::DeltaColumn, !m_model->isDelta());
    // In a comparison of one-call profiles Time is After again; its room goes to the names, whose
    // operation word (vectorized_elementwise_kernel<rsqrt…>) is what tells the rows apart.
    m_table->setColumnHidden(KernelTableModel::TotalColumn,
                             m_model->isDelta() && m_model->totalRepeatsAverage());
    // Sized to header and values (the header's hint holds the sort arrow), never cut.
    for (int c : nsightColumns()) {
        if (!m_table->isColumnHidden(c))
            m_table->resizeColumnToContents(c);
    }
    m_table->setColumnWidth(KernelTableModel::ShareColumn,
                            std::max(m_table->columnWidth(KernelTableModel::ShareColumn), 64));
    // The function names are measured here, once per table, not on every resize.
    const int margin =
        2 * (m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 1);
    int minimum = m_table->fontMetrics().horizontalAdvance(QStringLiteral("elementwise_kernel<…"));
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QString shown = m_model->index(row, KernelTableModel::NameColumn).data().toString();
        const qsizetype open = shown.indexOf(QLatin1Char('<'));
        minimum = std::max(minimum, m_table->fontMetrics().horizontalAdvance(
                                        open < 0 ? shown : shown.left(open + 1) + QStringLiteral("…")));
    }
    m_nameMinimum = minimum + margin;
    fitNameColumn();
}

void KernelTableView::fitNameColumn()
{
    // The name gives way first (it is elided, the tooltip holds it whole): the Nsight columns
    // stay on screen without scrolling as long as the name keeps its minimum.
    int used = 0;
    for (int c : nsightColumns()) {
        if (!m_table->isColumnHidden(c))
            used += m_table->columnWidth(c);
    }
    // At least the longest function name with its "<…" shows whole, up to the width of ATen's
    // longest (vectorized_elementwise_kernel): a generated 80-character Triton or CUTLASS name is
    // cut at its end rather than pushing the Nsight columns off screen.
    const int cap =
        m_table->fontMetrics().horizontalAdvance(QStringLiteral("vectorized_elementwise_kernel<…")) +
        2 * (m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 1);
    m_table->setColumnWidth(KernelTableModel::NameColumn,
                            std::max(std::min(m_nameMinimum, cap), m_table->viewport()->width() - used));
    updatePinnedGeometry();
}

void KernelTableView::updatePinnedGeometry()
{
    for (int c = 0; c < KernelTableModel::ColumnCount; ++c)
        m_pinned->setColumnHidden(c, c != KernelTableModel::NameColumn);
    m_pinned->setColumnWidth(KernelTableModel::NameColumn,
                             m_table->columnWidth(KernelTableModel::NameColumn));
    m_pinned->verticalHeader()->setDefaultSectionSize(m_table->verticalHeader()->defaultSectionSize());
    m_pinned->horizontalHeader()->setFixedHeight(m_table->horizontalHeader()->height());
    m_pinned->setGeometry(m_table->frameWidth(), m_table->frameWidth(),
                          m_table->columnWidth(KernelTableModel::NameColumn),
                          m_table->viewport()->height() + m_table->horizontalHeader()->height());
    m_pinned->setVisible(m_model->rowCount() > 0);
}

void KernelTableView::updateTotals()
{
    if (!m_model->isDelta()) {
        m_totals->hide();
        return;
    }
    // Kernel time per run of each report: what the change saved in the whole, not per kernel.
    auto sum = [](const KernelTable &t) {
        double ns = 0;
        for (const KernelStat &k : t.kernels)
            ns += k.totalNs;
        return ns;
    };
    const double before = sum(m_model->beforeTable());
    const double after = sum(m_model->table());
    QString text = tr("<b>Total</b> kernel time: before %1 → after %2")
                       .arg(KernelTableModel::timeText(before), KernelTableModel::timeText(after));
    if (before > 0)
        text += QStringLiteral(" (%1%2 %)")
                    .arg(after >= before ? QStringLiteral("+") : QString())
                    .arg((after / before - 1) * 100, 0, 'f', 1);
    text += tr(", %1 → %2 kernels")
                .arg(m_model->beforeTable().kernels.size())
                .arg(m_model->table().kernels.size());
    m_totals->setText(text);
    m_totals->show();
}

void KernelTableView::updateDetails()
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    if (!current.isValid()) {
        m_details->setText(tr("Select a kernel for its hint and launch figures."));
        return;
    }
    auto cell = [&current](int column) { return current.siblingAtColumn(column).data().toString(); };
    QStringList launch;
    if (!cell(KernelTableModel::CallsColumn).isEmpty())
        launch.append(tr("%1 call(s)").arg(cell(KernelTableModel::CallsColumn)));
    if (!cell(KernelTableModel::GridColumn).isEmpty())
        launch.append(tr("grid %1").arg(cell(KernelTableModel::GridColumn)));
    if (!cell(KernelTableModel::BlockColumn).isEmpty())
        launch.append(tr("block %1").arg(cell(KernelTableModel::BlockColumn)));
    if (!cell(KernelTableModel::RegistersColumn).isEmpty())
        launch.append(tr("%1 registers").arg(cell(KernelTableModel::RegistersColumn)));
    const QString bound = cell(KernelTableModel::BoundColumn);
    const QString hint = cell(KernelTableModel::HintColumn);
    QString text = QStringLiteral("<b>%1</b>").arg(cell(KernelTableModel::NameColumn).toHtmlEscaped());
    if (!bound.isEmpty() || !hint.isEmpty())
        text += QStringLiteral(": %1%2%3")
                    .arg(bound.toHtmlEscaped(),
                         bound.isEmpty() || hint.isEmpty() ? QString() : QStringLiteral(", "),
                         hint.toHtmlEscaped());
    if (!launch.isEmpty())
        text += QStringLiteral(". ") + launch.join(QStringLiteral(", ")).toHtmlEscaped();
    m_details->setText(text);
    m_details->setToolTip(current.data(KernelTableModel::KernelNameRole).toString());
}

bool KernelTableView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize)
        fitNameColumn();
    return QWidget::eventFilter(watched, event);
}

void KernelTableView::addKernelAction(QAction *action)
{
    m_kernelActions.append(action);
}

QString KernelTableView::comparisonText() const
{
    if (!m_model->isDelta())
        return {};
    return QStringLiteral("%1 -> %2")
        .arg(QFileInfo(m_model->beforeTable().path).fileName(), QFileInfo(m_model->table().path).fileName());
}

void KernelTableView::showContextMenu(const QPoint &position)
{
    const QModelIndex index = m_table->indexAt(position);
    if (!index.isValid())
        return;
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
    const QString name = index.data(KernelTableModel::KernelNameRole).toString();
    // popup(), not exec(): the GUI thread never waits in a nested event loop.
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->addAction(tr("Copy name"), this, [name] { QApplication::clipboard()->setText(name); });
    menu->addAction(tr("Copy short name"), this,
                    [name] { QApplication::clipboard()->setText(KernelTableModel::shortName(name)); });
    if (!m_kernelActions.isEmpty())
        menu->addSeparator();
    for (QAction *a : std::as_const(m_kernelActions))
        menu->addAction(a);
    menu->popup(m_table->viewport()->mapToGlobal(position));
}

bool KernelTableView::selectKernel(const QString &name)
{
    const int sourceRow = m_model->rowForKernel(name);
    if (sourceRow < 0)
        return false;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    if (!index.isValid())
        return false;
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
    m_table->scrollTo(index);
    return true;
}

QString KernelTableView::selectedKernel() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? current.data(KernelTableModel::KernelNameRole).toString() : QString();
}

} // namespace hotkernel
