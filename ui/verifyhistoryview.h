// SPDX-License-Identifier: Apache-2.0
// The selected target's verifies: a table, and a chart of candidate mean per experiment against the
// baseline band (mean ± std) with the best-so-far line. GUI thread; Qt Charts stays in here.
#pragma once

#include <QWidget>

class QChartView;
class QLabel;
class QTableView;

namespace hotkernel {

class VerifyHistoryModel;

class VerifyHistoryView : public QWidget
{
    Q_OBJECT
public:
    explicit VerifyHistoryView(VerifyHistoryModel *model, QWidget *parent = nullptr);
    QTableView *table() const { return m_table; }
    QChartView *chartView() const { return m_chartView; }
    // Series in the chart now (tests): candidate, band, best so far.
    int seriesCount() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuildChart();

    VerifyHistoryModel *m_model;
    QTableView *m_table;
    QChartView *m_chartView;
    QLabel *m_empty;
};

} // namespace hotkernel
