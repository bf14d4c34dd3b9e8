// SPDX-License-Identifier: Apache-2.0
// The kernel table pane: a report's kernels sortable and filterable by text, share as a bar,
// names elided in the middle (full name on hover), and a before/after delta of two reports.
// GUI thread.
#pragma once

#include "inspect/kernelstat.h"

#include <QWidget>

#include <vector>

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

Q_SIGNALS:
    void kernelSelected(const QString &name);
    // Another report (or comparison) is shown: model()->table() changed.
    void reportChanged();

private:
    void updateColumns();

    std::vector<KernelTable> m_tables;
    KernelTableModel *m_model;
    KernelFilterProxy *m_proxy;
    QTableView *m_table;
    QLineEdit *m_filter;
    QComboBox *m_report;
    QComboBox *m_before;
    QLabel *m_empty;
};

} // namespace hotkernel
