// SPDX-License-Identifier: Apache-2.0
// The kernel table pane: a report's kernels sortable and filterable by text, share as a bar,
// names cut at their template arguments (full name on hover, copy in the context menu), and a
// "before -> after" delta of two reports. GUI thread.
#pragma once

#include "inspect/kernelstat.h"

#include <QWidget>

#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace hotkernel {

class KernelFilterProxy;
class KernelTableModel;

class KernelTableView : public QWidget
{
    Q_OBJECT
public:
    explicit KernelTableView(QWidget *parent = nullptr);

    // Every report the working directory holds, newest first; shows the first.
    void setTables(std::vector<KernelTable> tables);
    KernelTableModel *model() const { return m_model; }
    KernelFilterProxy *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    QLineEdit *filter() const { return m_filter; }
    // Selects a kernel's row (from the roofline); false when it is not shown.
    bool selectKernel(const QString &name);
    QString selectedKernel() const;
    // Before/after by index into the tables given; -1 for before shows one report.
    void showReports(int after, int before = -1);
    // Actions on the selected kernel (profile it, disasm it, a new target from it), shown in the
    // table's context menu after the copy actions; they read selectedKernel() when triggered.
    void addKernelAction(QAction *action);
    // What the compare bar reads, e.g. "a.csv -> b.csv" (empty without a comparison).
    QString comparisonText() const;
    // Under the table: a comparison's totals ("Total: before 328.1 us -> after 32.50 us, -90.1 %"),
    // hidden without one; and the selected kernel's whole name, hint and launch figures.
    QLabel *totalsLabel() const { return m_totals; }
    QLabel *detailsLabel() const { return m_details; }
    // The name column drawn over the table's left edge, which stays when the table scrolls sideways.
    QTableView *pinnedNames() const { return m_pinned; }
    // Nsight Compute's columns (share to bound, with before/change in a comparison): sized to
    // their header and values; the name column takes the rest of the width, down to a minimum.
    static QList<int> nsightColumns();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

Q_SIGNALS:
    void kernelSelected(const QString &name);
    // Another report (or comparison) is shown: model()->table() changed.
    void reportChanged();

private:
    void updateColumns();
    void fitNameColumn();
    void showContextMenu(const QPoint &position);
    void updatePinnedGeometry();
    void updateTotals();
    void updateDetails();

    std::vector<KernelTable> m_tables;
    KernelTableModel *m_model;
    KernelFilterProxy *m_proxy;
    QTableView *m_table;
    QLineEdit *m_filter;
    QComboBox *m_report;
    QComboBox *m_before;
    QLabel *m_empty;
    QTableView *m_pinned;
    QLabel *m_totals;
    QLabel *m_details;
    QList<QAction *> m_kernelActions;
    int m_nameMinimum = 0; // the longest function name with its "<…", measured once per table
};

} // namespace hotkernel
