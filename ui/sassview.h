// SPDX-License-Identifier: Apache-2.0
// The selected kernel's SASS or PTX: highlighted table with hot lines (marked on the scroll bar,
// stepped through with next/previous hot), sortable columns, search, jump to address, and a
// side-by-side diff of baseline and candidate. Opens on the hottest line. Follows the palette.
// GUI thread.
#pragma once

#include "inspect/sassinstruction.h"

#include <QWidget>

class QAbstractItemModel;
class QLabel;
class QSortFilterProxyModel;
class QToolButton;
class QLineEdit;
class QStackedWidget;
class QTableView;

namespace hotkernel {

class HeatScrollBar;
class SassModel;

class SassView : public QWidget
{
    Q_OBJECT
public:
    explicit SassView(QWidget *parent = nullptr);

    void setFunction(const SassFunction &function);
    // Side by side; the labels name each side (default: baseline and candidate).
    void setDiff(const SassFunction &baseline, const SassFunction &candidate, const QString &leftLabel = {},
                 const QString &rightLabel = {});
    // Says why there is nothing to show.
    void clear(const QString &emptyMessage);

    bool isDiffShown() const;
    SassModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    // Selects the next row containing text; returns it, or -1.
    int findNext(const QString &text);
    // Selects the instruction at (or just before) address; false when there is none.
    bool jumpToAddress(quint64 address);
    // Selects the next (forward) or previous hot line after the current one, wrapping; returns its
    // model row, or -1 when the listing has no samples.
    int nextHot(bool forward = true);
    // The model row the main table's current index shows (-1 when none).
    int currentRow() const;
    HeatScrollBar *heatBar() const { return m_heatBar; }
    // "Hot line 1 of 7: 8.1% of the samples, top stall: waiting on global memory (62%)": the
    // current line's place among the hot lines and why it stalls, always in view above the table.
    QLabel *hotLabel() const { return m_hotLabel; }
    // Above the listing: why it is not the selected kernel's (it has no disassembly here).
    void setNote(const QString &note);
    // The height this pane needs to show rows listing rows (toolbar, hot line, header and
    // scroll bar included): the window gives it that much on a short screen (issue 45).
    int heightForRows(int rows) const;
    // How many whole listing rows the table shows now.
    int visibleRows() const;

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QTableView *makeTable(QAbstractItemModel *model);
    void applyTheme();
    void showPage(QWidget *page);
    // Selects a model row of the main table and centres it.
    void showRow(int modelRow);
    void updateHeatMarks();
    void updateHotLabel();

    QLabel *m_title;
    QLineEdit *m_search;
    QLineEdit *m_jump;
    QStackedWidget *m_stack;
    QLabel *m_empty;
    SassModel *m_model;
    QSortFilterProxyModel *m_proxy; // sorting by any column; the model keeps address order
    QTableView *m_table;
    HeatScrollBar *m_heatBar;
    QToolButton *m_previousHot;
    QToolButton *m_nextHot;
    QLabel *m_hotLabel;
    QLabel *m_note;
    int m_pendingRow = -1; // centred again once the table has its size
    QWidget *m_diffPage;
    SassModel *m_leftModel;
    SassModel *m_rightModel;
    QTableView *m_leftTable;
    QTableView *m_rightTable;
};

} // namespace hotkernel
