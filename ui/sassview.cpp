// SPDX-License-Identifier: Apache-2.0
#include "sassview.h"

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
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace hotkernel {

SassView::SassView(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_search(new QLineEdit(this)), m_jump(new QLineEdit(this)),
      m_stack(new QStackedWidget(this)), m_empty(new QLabel(this)), m_model(new SassModel(this)),
      m_leftModel(new SassModel(this)), m_rightModel(new SassModel(this))
{
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
    bar->addWidget(m_search, 1);
    bar->addWidget(m_jump);

    m_table = makeTable(m_model);
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

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_stack, 1);
    applyTheme();
    clear(tr(
        "No SASS yet. Select a kernel that has a disassembly, or run disasm on a .cubin or Triton kernel."));
}

QTableView *SassView::makeTable(SassModel *model)
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
    table->setColumnWidth(SassModel::InstructionColumn, 460);
    table->setColumnWidth(SassModel::StallSamplesColumn, 100);
    table->setColumnWidth(SassModel::ExecutedColumn, 100);
    return table;
}

void SassView::showPage(QWidget *page)
{
    m_stack->setCurrentWidget(page);
}

void SassView::setFunction(const SassFunction &function)
{
    m_model->setFunction(function);
    const bool hasSamples =
        std::any_of(function.instructions.begin(), function.instructions.end(),
                    [](const SassInstruction &in) { return in.stallSamples.has_value(); });
    m_table->setColumnHidden(SassModel::StallSamplesColumn, !hasSamples);
    m_table->setColumnHidden(SassModel::ExecutedColumn, !hasSamples);
    m_title->setText(
        QStringLiteral("<b>%1</b> %2 %3")
            .arg((function.demangled.isEmpty() ? function.name : function.demangled).toHtmlEscaped(),
                 function.level.toUpper(), function.arch));
    showPage(function.instructions.empty() ? static_cast<QWidget *>(m_empty) : m_table);
    if (function.instructions.empty())
        m_empty->setText(tr("%1 has no instructions.").arg(function.name));
}

void SassView::setDiff(const SassFunction &baseline, const SassFunction &candidate)
{
    const SassDiff diff = SassDiff::align(baseline, candidate);
    m_leftModel->setFunction(baseline, diff.left);
    m_rightModel->setFunction(candidate, diff.right);
    for (QTableView *t : {m_leftTable, m_rightTable}) {
        t->setColumnHidden(SassModel::StallSamplesColumn, true);
        t->setColumnHidden(SassModel::ExecutedColumn, true);
    }
    m_title->setText(
        tr("<b>Diff</b> baseline %1 | candidate %2: %n changed line(s)", nullptr, diff.changedLines)
            .arg(baseline.name.toHtmlEscaped(), candidate.name.toHtmlEscaped()));
    showPage(m_diffPage);
}

void SassView::clear(const QString &emptyMessage)
{
    m_model->setFunction(SassFunction{});
    m_title->clear();
    m_empty->setText(emptyMessage);
    showPage(m_empty);
}

bool SassView::isDiffShown() const
{
    return m_stack->currentWidget() == m_diffPage;
}

int SassView::findNext(const QString &text)
{
    QTableView *table = isDiffShown() ? m_rightTable : m_table;
    auto *model = static_cast<SassModel *>(table->model());
    const int current = table->currentIndex().isValid() ? table->currentIndex().row() + 1 : 0;
    const int row = model->find(text, current);
    m_search->setStyleSheet(row < 0 && !text.isEmpty() ? QStringLiteral("color: red") : QString());
    if (row >= 0) {
        table->selectRow(row);
        table->scrollTo(model->index(row, 0), QAbstractItemView::PositionAtCenter);
    }
    return row;
}

bool SassView::jumpToAddress(quint64 address)
{
    QTableView *table = isDiffShown() ? m_rightTable : m_table;
    auto *model = static_cast<SassModel *>(table->model());
    const int row = model->rowForAddress(address);
    if (row < 0)
        return false;
    table->selectRow(row);
    table->scrollTo(model->index(row, 0), QAbstractItemView::PositionAtCenter);
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
