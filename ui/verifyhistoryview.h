// SPDX-License-Identifier: Apache-2.0
// The selected target's verifies: a table of every row with units, beside a chart of the speedup per
// experiment (log axis when the speedups span more than 3x, else fitted to them), the baseline's
// 1x and the best so far. GUI thread; Qt Charts stays in here.
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
    // The speedup axis now: log or linear, and its range (tests).
    bool speedupAxisIsLog() const { return m_logAxis; }
    QPair<double, double> speedupRange() const { return m_range; }

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void rebuildChart();
    void fitWhoColumn();

    VerifyHistoryModel *m_model;
    QTableView *m_table;
    QChartView *m_chartView;
    QLabel *m_empty;
    bool m_logAxis = false;
    QPair<double, double> m_range;
};

} // namespace hotkernel
