// SPDX-License-Identifier: Apache-2.0
// The selected target's verifies: a table of every row with units, beside a chart of the speedup per
// experiment with its 99% interval (log axis when they span more than 3x, else fitted to them and
// 1x), the baseline's 1x and the best so far; above both, the latest verify in one line.
// GUI thread; Qt Charts stays in here.
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
    // "Latest verify: slower 0.71x [0.65, 0.78] (99%, n 7), welch, warm": always in view.
    QLabel *latestLabel() const { return m_latest; }
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
    QLabel *m_latest;
    bool m_logAxis = false;
    QPair<double, double> m_range;
};

} // namespace hotkernel
