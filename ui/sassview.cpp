// SPDX-License-Identifier: Apache-2.0
#include "sassview.h"

#include "heatscrollbar.h"
#include "highlighting.h"
#include "sassdelegate.h"
#include "sassdiff.h"
#include "sassmodel.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPersistentModelIndex>
#include <QResizeEvent>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdlib>

namespace hotkernel {

SassView::SassView(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_search(new QLineEdit(this)), m_jump(new QLineEdit(this)),
      m_stack(new QStackedWidget(this)), m_empty(new QLabel(this)), m_model(new SassModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_heatBar(new HeatScrollBar(this)),
      m_previousHot(new QToolButton(this)), m_nextHot(new QToolButton(this)), m_hotLabel(new QLabel(this)),
      m_note(new QLabel(this)), m_leftModel(new SassModel(this)), m_rightModel(new SassModel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SassModel::SortRole);
    m_previousHot->setText(tr("◀ Hot"));
    m_previousHot->setToolTip(tr("Previous hot instruction (Shift+F3)"));
    m_previousHot->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));
    m_nextHot->setText(tr("Hot ▶"));
    m_nextHot->setToolTip(tr("Next hot instruction (F3): the lines holding most of the stall samples"));
    m_nextHot->setShortcut(QKeySequence(Qt::Key_F3));
    connect(m_previousHot, &QToolButton::clicked, this, [this] { nextHot(false); });
    connect(m_nextHot, &QToolButton::clicked, this, [this] { nextHot(true); });
    m_search->setPlaceholderText(tr("Search (Enter: next)"));
    m_search->setClearButtonEnabled(true);
    m_jump->setPlaceholderText(tr("Jump to address (0x1c0)"));
    m_jump->setMaximumWidth(200);
    connect(m_search, &QLineEdit::returnPressed, this, [this] { findNext(m_search->text()); });
    connect(m_jump, &QLineEdit::returnPressed, this, [this] {
        bool ok = false;
        const quint64 address = m_jump->text().trimmed().toULongLong(&ok, 16);
        m_jump->setStyleSheet(ok && jumpToAddress(address) ? QString() : QStringLiteral("color: red"));
    });

    // Long C++ names must not squeeze the search fields away.
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_search->setMinimumWidth(160);
    m_jump->setMinimumWidth(140);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_title, 1);
    bar->addWidget(m_previousHot);
    bar->addWidget(m_nextHot);
    bar->addWidget(m_search, 1);
    bar->addWidget(m_jump);

    m_table = makeTable(m_proxy);
    m_table->setVerticalScrollBar(m_heatBar);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // address order until a header is clicked
    m_table->horizontalHeader()->setSortIndicatorShown(true);
    // A pane made shorter or taller (the window laid out for a small screen, a splitter dragged)
    // keeps the current line in view: the hot line centred for a tall pane would otherwise sit
    // below it, and one centred in a short pane at the top of a taller one.
    m_table->viewport()->installEventFilter(this);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &SassView::updateHeatMarks);
    m_leftTable = makeTable(m_leftModel);
    m_rightTable = makeTable(m_rightModel);
    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(m_leftTable);
    splitter->addWidget(m_rightTable);
    m_diffPage = splitter;
    // The two sides scroll together: their rows are aligned by the diff.
    connect(m_leftTable->verticalScrollBar(), &QScrollBar::valueChanged, m_rightTable->verticalScrollBar(),
            &QScrollBar::setValue);
    connect(m_rightTable->verticalScrollBar(), &QScrollBar::valueChanged, m_leftTable->verticalScrollBar(),
            &QScrollBar::setValue);

    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_table);
    m_stack->addWidget(m_diffPage);

    m_hotLabel->setObjectName(QStringLiteral("hotLine"));
    m_hotLabel->setWordWrap(true);
    m_hotLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note->setWordWrap(true);
    m_note->hide();
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SassView::updateHotLabel);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &SassView::updateHotLabel);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_note);
    layout->addWidget(m_hotLabel);
    layout->addWidget(m_stack, 1);
    applyTheme();
    clear(tr(
        "No SASS yet. Select a kernel that has a disassembly, or run disasm on a .cubin or Triton kernel."));
}

QTableView *SassView::makeTable(QAbstractItemModel *model)
{
    auto *table = new QTableView;
    table->setModel(model);
    table->setItemDelegate(new SassDelegate(table));
    table->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setShowGrid(false);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    // Fixed row heights: a 50k-line listing must not measure every row.
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 2);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table->horizontalHeader()->setStretchLastSection(false);
    table->setColumnWidth(SassModel::AddressColumn, 70);
    table->setColumnWidth(SassModel::InstructionColumn, 300);
    table->setColumnWidth(SassModel::StallSamplesColumn,
                          table->fontMetrics().horizontalAdvance(QStringLiteral("123456  100.0%")) + 12);
    table->setColumnWidth(
        SassModel::TopStallColumn,
        table->fontMetrics().horizontalAdvance(QStringLiteral("waiting on global memory 100%")) + 12);
    table->setTabKeyNavigation(false);
    table->setColumnWidth(SassModel::ExecutedColumn, 80);
    return table;
}

void SassView::showPage(QWidget *page)
{
    m_stack->setCurrentWidget(page);
}

void SassView::setNote(const QString &note)
{
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
}

void SassView::updateHotLabel()
{
    const int hot = int(m_model->hotRows().size());
    if (isDiffShown() || hot == 0 || m_stack->currentWidget() != m_table) {
        m_hotLabel->setVisible(false);
        return;
    }
    const int row = currentRow();
    const int k = row >= 0 ? m_model->hotIndex(row) : 0;
    QString text = k > 0 ? tr("<b>Hot line %1 of %2</b>").arg(k).arg(hot)
                         : tr("Not a hot line (%n hot line(s): F3 steps to them)", nullptr, hot);
    if (row >= 0 && m_model->function().instructions.size() > size_t(0)) {
        const QModelIndex samples = m_model->index(row, SassModel::StallSamplesColumn);
        const qint64 n = samples.data(SassModel::StallSamplesRole).toLongLong();
        const qint64 total = m_model->totalSamples();
        const QString stall = m_model->index(row, SassModel::TopStallColumn).data().toString();
        if (n > 0 && total > 0)
            text += tr(": %1% of the samples").arg(100.0 * double(n) / double(total), 0, 'f', 1);
        if (!stall.isEmpty())
            text += tr(", top stall: %1").arg(stall.toHtmlEscaped());
    }
    m_hotLabel->setText(text);
    m_hotLabel->setVisible(true);
}

void SassView::setFunction(const SassFunction &function)
{
    setNote({});
    m_model->setFunction(function);
    const bool hasSamples =
        std::any_of(function.instructions.begin(), function.instructions.end(),
                    [](const SassInstruction &in) { return in.stallSamples.has_value(); });
    m_table->setColumnHidden(SassModel::StallSamplesColumn, !hasSamples);
    m_table->setColumnHidden(SassModel::TopStallColumn, !hasSamples);
    m_table->setColumnHidden(SassModel::ExecutedColumn, !hasSamples);
    m_previousHot->setEnabled(hasSamples);
    m_nextHot->setEnabled(hasSamples);
    updateHeatMarks();
    m_title->setText(
        QStringLiteral("<b>%1</b> %2 %3")
            .arg((function.demangled.isEmpty() ? function.name : function.demangled).toHtmlEscaped(),
                 function.level.toUpper(), function.arch));
    showPage(function.instructions.empty() ? static_cast<QWidget *>(m_empty) : m_table);
    if (function.instructions.empty())
        m_empty->setText(tr("%1 has no instructions.").arg(function.name));
    // Open where the samples are, as Nsight's source view does not: the hottest line, centred.
    showRow(m_model->hottestRow() >= 0 ? m_model->hottestRow() : 0);
    updateHotLabel();
}

void SassView::showRow(int modelRow)
{
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(modelRow, 0));
    if (!index.isValid())
        return;
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
    m_table->scrollTo(index, QAbstractItemView::PositionAtCenter);
    // A table not yet laid out scrolls against a zero-height viewport: centre again when shown.
    m_pendingRow = m_table->isVisible() && m_table->viewport()->height() > 0 ? -1 : modelRow;
}

int SassView::currentRow() const
{
    const QModelIndex current = m_table->currentIndex();
    return current.isValid() ? m_proxy->mapToSource(current).row() : -1;
}

int SassView::nextHot(bool forward)
{
    const std::vector<int> &hot = m_model->hotRows();
    if (hot.empty() || isDiffShown())
        return -1;
    // Hot lines in the order the table shows them, so "next" follows the screen when sorted.
    std::vector<std::pair<int, int>> shown; // proxy row, model row
    for (int row : hot)
        shown.emplace_back(m_proxy->mapFromSource(m_model->index(row, 0)).row(), row);
    std::sort(shown.begin(), shown.end());
    const int at = m_table->currentIndex().isValid() ? m_table->currentIndex().row() : -1;
    int target = -1;
    if (forward) {
        auto it = std::find_if(shown.begin(), shown.end(), [at](const auto &p) { return p.first > at; });
        target = (it == shown.end() ? shown.front() : *it).second;
    } else {
        auto it = std::find_if(shown.rbegin(), shown.rend(), [at](const auto &p) { return p.first < at; });
        target = (it == shown.rend() ? shown.back() : *it).second;
    }
    showRow(target);
    return target;
}

void SassView::updateHeatMarks()
{
    std::vector<HeatScrollBar::Mark> marks;
    const int rows = m_proxy->rowCount();
    if (rows > 0) {
        for (int row : m_model->hotRows()) {
            const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
            marks.push_back(
                {double(index.row()) / double(rows), index.data(SassModel::HotnessRole).toDouble()});
        }
    }
    m_heatBar->setMarks(std::move(marks));
}

void SassView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_pendingRow >= 0) {
        const int row = m_pendingRow;
        // After this event the layout has given the table its height.
        QTimer::singleShot(0, this, [this, row] {
            if (m_pendingRow == row)
                showRow(row);
        });
    }
}

bool SassView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize) {
        const auto *resize = static_cast<QResizeEvent *>(event);
        const QModelIndex current = m_table->currentIndex();
        const int oldHeight = resize->oldSize().height();
        if (current.isValid() && oldHeight > 0 && resize->size().height() != oldHeight) {
            const QRect row = m_table->visualRect(current);
            // A line centred before stays centred (the window laid out again, a splitter dragged);
            // one that was in view stays in view; one the user scrolled away from stays away.
            const bool wasCentred = std::abs(row.center().y() - oldHeight / 2) <= row.height();
            const bool wasShown = row.top() >= 0 && row.bottom() < oldHeight;
            const bool isShown = row.top() >= 0 && row.bottom() < resize->size().height();
            if (wasCentred || (wasShown && !isShown)) {
                // Now (a picture taken right after the resize shows it), and again once the
                // scroll bar's range has followed the new height.
                m_table->scrollTo(current, QAbstractItemView::PositionAtCenter);
                QTimer::singleShot(0, this, [this, current = QPersistentModelIndex(current)] {
                    if (current.isValid())
                        m_table->scrollTo(current, QAbstractItemView::PositionAtCenter);
                });
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

int SassView::heightForRows(int rows) const
{
    // What the table takes besides its rows: frame, header and the horizontal scroll bar that
    // its columns (wider than a short pane) bring.
    const int table = 2 * m_table->frameWidth() + m_table->horizontalHeader()->sizeHint().height() +
                      m_table->horizontalScrollBar()->sizeHint().height() +
                      rows * m_table->verticalHeader()->defaultSectionSize();
    // Above it the bar and the hot line (reserved even before a listing shows it), and the note
    // when there is one.
    auto *box = static_cast<QBoxLayout *>(layout());
    const QMargins margins = box->contentsMargins();
    const int hotLine = std::max(m_hotLabel->sizeHint().height(), m_hotLabel->fontMetrics().height());
    int above = box->itemAt(0)->sizeHint().height() + box->spacing() + hotLine + box->spacing();
    if (m_note->isVisibleTo(this))
        above += m_note->sizeHint().height() + box->spacing();
    // A few pixels to spare: the laid-out header can be a little taller than its hint.
    return margins.top() + margins.bottom() + above + table + 4;
}

int SassView::visibleRows() const
{
    return m_table->viewport()->height() / std::max(1, m_table->verticalHeader()->defaultSectionSize());
}

void SassView::setDiff(const SassFunction &baseline, const SassFunction &candidate, const QString &leftLabel,
                       const QString &rightLabel)
{
    setNote({});
    const SassDiff diff = SassDiff::align(baseline, candidate);
    m_leftModel->setFunction(baseline, diff.left);
    m_rightModel->setFunction(candidate, diff.right);
    for (QTableView *t : {m_leftTable, m_rightTable}) {
        for (int c : {SassModel::StallSamplesColumn, SassModel::TopStallColumn, SassModel::ExecutedColumn})
            t->setColumnHidden(c, true);
    }
    m_title->setText(
        tr("<b>Diff</b> %1 | %2: %n changed line(s)", nullptr, diff.changedLines)
            .arg((leftLabel.isEmpty() ? tr("baseline %1").arg(baseline.name) : leftLabel).toHtmlEscaped(),
                 (rightLabel.isEmpty() ? tr("candidate %1").arg(candidate.name) : rightLabel)
                     .toHtmlEscaped()));
    showPage(m_diffPage);
    updateHotLabel();
}

void SassView::clear(const QString &emptyMessage)
{
    m_model->setFunction(SassFunction{});
    m_title->clear();
    m_empty->setText(emptyMessage);
    showPage(m_empty);
    setNote({});
    updateHotLabel();
}

bool SassView::isDiffShown() const
{
    return m_stack->currentWidget() == m_diffPage;
}

int SassView::findNext(const QString &text)
{
    if (isDiffShown()) {
        const int current =
            m_rightTable->currentIndex().isValid() ? m_rightTable->currentIndex().row() + 1 : 0;
        const int row = m_rightModel->find(text, current);
        m_search->setStyleSheet(row < 0 && !text.isEmpty() ? QStringLiteral("color: red") : QString());
        if (row >= 0) {
            m_rightTable->selectRow(row);
            m_rightTable->scrollTo(m_rightModel->index(row, 0), QAbstractItemView::PositionAtCenter);
        }
        return row;
    }
    const int row = m_model->find(text, currentRow() + 1);
    m_search->setStyleSheet(row < 0 && !text.isEmpty() ? QStringLiteral("color: red") : QString());
    if (row >= 0)
        showRow(row);
    return row;
}

bool SassView::jumpToAddress(quint64 address)
{
    if (isDiffShown()) {
        const int row = m_rightModel->rowForAddress(address);
        if (row < 0)
            return false;
        m_rightTable->selectRow(row);
        m_rightTable->scrollTo(m_rightModel->index(row, 0), QAbstractItemView::PositionAtCenter);
        return true;
    }
    const int row = m_model->rowForAddress(address);
    if (row < 0)
        return false;
    showRow(row);
    return true;
}

void SassView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
    QWidget::changeEvent(event);
}

void SassView::applyTheme()
{
    const auto theme = Highlighting::themeForPalette(palette());
    for (SassModel *m : {m_model, m_leftModel, m_rightModel})
        m->setTheme(theme);
}

} // namespace hotkernel
