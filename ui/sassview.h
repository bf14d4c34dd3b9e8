// SPDX-License-Identifier: Apache-2.0
// The selected kernel's SASS or PTX: highlighted table with hot lines, search, jump to address,
// and a side-by-side diff of baseline and candidate. Follows the palette. GUI thread.
#pragma once

#include "inspect/sassinstruction.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QStackedWidget;
class QTableView;

namespace hotkernel {

class SassModel;

class SassView : public QWidget
{
    Q_OBJECT
public:
    explicit SassView(QWidget *parent = nullptr);

    void setFunction(const SassFunction &function);
    void setDiff(const SassFunction &baseline, const SassFunction &candidate);
    // Says why there is nothing to show.
    void clear(const QString &emptyMessage);

    bool isDiffShown() const;
    SassModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    // Selects the next row containing text; returns it, or -1.
    int findNext(const QString &text);
    // Selects the instruction at (or just before) address; false when there is none.
    bool jumpToAddress(quint64 address);

protected:
    void changeEvent(QEvent *event) override;

private:
    QTableView *makeTable(SassModel *model);
    void applyTheme();
    void showPage(QWidget *page);

    QLabel *m_title;
    QLineEdit *m_search;
    QLineEdit *m_jump;
    QStackedWidget *m_stack;
    QLabel *m_empty;
    SassModel *m_model;
    QTableView *m_table;
    QWidget *m_diffPage;
    SassModel *m_leftModel;
    SassModel *m_rightModel;
    QTableView *m_leftTable;
    QTableView *m_rightTable;
};

} // namespace hotkernel
