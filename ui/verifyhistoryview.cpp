// SPDX-License-Identifier: Apache-2.0
#include "verifyhistoryview.h"

#include "verifyhistorymodel.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace hotkernel {

VerifyHistoryView::VerifyHistoryView(VerifyHistoryModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_table(new QTableView(this)),
      m_chartView(new QChartView(new QChart, this)), m_empty(new QLabel(this))
{
    m_table->setModel(model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumHeight(200);
    // Legend beside the plot: under it, it takes the height the axis labels need.
    m_chartView->chart()->legend()->setAlignment(Qt::AlignRight);
    m_empty->setWordWrap(true);
    m_empty->setText(
        tr("No verify yet for this target. Verify it (Verify in the toolbar, or `hotkernel verify`) "
           "and record the result to build its history."));

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_chartView);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_empty);
    layout->addWidget(splitter, 1);

    connect(model, &QAbstractItemModel::modelReset, this, &VerifyHistoryView::rebuildChart);
    connect(model, &QAbstractItemModel::rowsInserted, this, &VerifyHistoryView::rebuildChart);
    rebuildChart();
}

int VerifyHistoryView::seriesCount() const
{
    return int(m_chartView->chart()->series().size());
}

void VerifyHistoryView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        rebuildChart(); // the chart theme follows the palette
    QWidget::changeEvent(event);
}

void VerifyHistoryView::rebuildChart()
{
    QChart *chart = m_chartView->chart();
    chart->setTheme(palette().color(QPalette::Base).lightness() < 128 ? QChart::ChartThemeDark
                                                                      : QChart::ChartThemeLight);
    chart->removeAllSeries();
    for (QAbstractAxis *axis : chart->axes())
        chart->removeAxis(axis);
    const auto &records = m_model->shown();
    m_empty->setVisible(records.empty());
    chart->setTitle(records.empty() ? tr("Verify history") : tr("Verify history: %1").arg(m_model->target()));
    if (records.empty())
        return;

    auto *upper = new QLineSeries;
    auto *lower = new QLineSeries;
    auto *candidate = new QLineSeries;
    auto *points = new QScatterSeries;
    auto *best = new QLineSeries;
    candidate->setName(tr("candidate mean"));
    points->setName(tr("candidate"));
    points->setMarkerSize(8);
    best->setName(tr("best so far"));
    double yMin = std::numeric_limits<double>::max(), yMax = 0,
           bestSoFar = std::numeric_limits<double>::max();
    for (size_t i = 0; i < records.size(); ++i) {
        const VerifyRecord &r = records[i];
        const double x = double(i + 1);
        upper->append(x, r.baselineMeanMs + r.baselineStdMs);
        lower->append(x, r.baselineMeanMs - r.baselineStdMs);
        candidate->append(x, r.candidateMeanMs);
        points->append(x, r.candidateMeanMs);
        // Only a correct, faster result can be the best so far.
        if (r.verdict == QLatin1String("faster"))
            bestSoFar = std::min(bestSoFar, r.candidateMeanMs);
        if (bestSoFar < std::numeric_limits<double>::max())
            best->append(x, bestSoFar);
        yMin = std::min({yMin, r.candidateMeanMs, r.baselineMeanMs - r.baselineStdMs});
        yMax = std::max({yMax, r.candidateMeanMs, r.baselineMeanMs + r.baselineStdMs});
    }
    if (records.size() == 1) {
        // A band needs two x values to be visible.
        upper->append(1.5, upper->at(0).y());
        lower->append(1.5, lower->at(0).y());
    }
    auto *band = new QAreaSeries(upper, lower);
    band->setName(tr("baseline mean ± std"));
    QColor fill(120, 120, 200, 70);
    band->setBrush(fill);
    band->setPen(QPen(fill.darker(), 1));

    auto *x = new QValueAxis;
    x->setTitleText(tr("experiment"));
    x->setLabelFormat(QStringLiteral("%d"));
    x->setRange(0.5, double(records.size()) + 0.5);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(1);
    x->setTickInterval(std::max(1.0, std::ceil(double(records.size()) / 10)));
    auto *y = new QValueAxis;
    y->setTitleText(tr("ms per call"));
    const double pad = std::max((yMax - yMin) * 0.1, yMax * 0.01);
    y->setRange(std::max(0.0, yMin - pad), yMax + pad);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    QList<QAbstractSeries *> series{band, candidate, points};
    if (best->count() > 0) {
        QPen bestPen(QColor(30, 150, 60));
        bestPen.setWidth(2);
        bestPen.setStyle(Qt::DashLine);
        best->setPen(bestPen);
        series.append(best);
    } else {
        delete best;
    }
    for (QAbstractSeries *s : std::as_const(series)) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
}

} // namespace hotkernel
