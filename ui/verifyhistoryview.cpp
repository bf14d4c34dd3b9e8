// SPDX-License-Identifier: Apache-2.0
#include "verifyhistoryview.h"

#include "verifyhistorymodel.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QGraphicsLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMap>
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
      m_chartView(new QChartView(new QChart, this)), m_empty(new QLabel(this)), m_latest(new QLabel(this))
{
    m_latest->setObjectName(QStringLiteral("latestVerify"));
    m_latest->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_latest->setWordWrap(true); // an incorrect run's reason is a sentence
    m_table->setModel(model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    // A long who ("agent: Claude (...), Triton written by hand") is cut at its end, never at the
    // viewport's edge after its first word; the tooltip holds it whole.
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->viewport()->installEventFilter(this);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumHeight(130); // a 1280x720 window keeps its bottom row short (issue 45)
    m_chartView->setMinimumWidth(260);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    // No legend: in a dock this small it takes the plot's room; the title names the lines and the
    // points take the verdict colours of the table beside.
    m_chartView->chart()->legend()->hide();
    // A dock-sized chart: the theme's margins and rounded frame would cut the title and the
    // axis title, so the plot gets the room and the explanation goes to the tooltip.
    m_chartView->chart()->setMargins(QMargins(2, 2, 8, 2));
    m_chartView->chart()->layout()->setContentsMargins(0, 0, 0, 0);
    m_chartView->chart()->setBackgroundRoundness(0);
    m_chartView->setToolTip(tr("Speedup = baseline time / candidate time per verify, in order, with its 99% "
                               "interval as a bar. Dotted: the baseline (1x); dashed: the best correct "
                               "speedup so far. Incorrect and invalid verifies have no speedup."));
    m_empty->setWordWrap(true);
    m_empty->setText(
        tr("No verify yet for this target. Verify it (Verify in the toolbar, or `hotkernel verify`) "
           "and record the result to build its history."));

    // Side by side: the dock is wider than tall, and every row must show (issue 22).
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_chartView);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_empty);
    layout->addWidget(m_latest);
    layout->addWidget(splitter, 1);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

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

bool VerifyHistoryView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize)
        fitWhoColumn();
    return QWidget::eventFilter(watched, event);
}

void VerifyHistoryView::fitWhoColumn()
{
    // The figures keep their width; Who takes the rest of the viewport (at least a short who's
    // worth), up to what its longest text needs. The note after it scrolls.
    const int who = VerifyHistoryModel::WhoColumn;
    int before = 0;
    for (int c = 0; c < who; ++c)
        before += m_table->isColumnHidden(c) ? 0 : m_table->columnWidth(c);
    const int minimum =
        m_table->fontMetrics().horizontalAdvance(QStringLiteral("agent: Claude, Triton")) + 12;
    m_table->resizeColumnToContents(who);
    const int wanted = m_table->columnWidth(who);
    m_table->setColumnWidth(who, std::min(wanted, std::max(minimum, m_table->viewport()->width() - before)));
}

void VerifyHistoryView::rebuildChart()
{
    QChart *chart = m_chartView->chart();
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->removeAllSeries();
    for (QAbstractAxis *axis : chart->axes())
        chart->removeAxis(axis);
    m_table->resizeColumnsToContents();
    fitWhoColumn();
    const auto &records = m_model->shown();
    m_empty->setVisible(records.empty());
    m_latest->setVisible(!records.empty());
    if (!records.empty()) {
        const VerifyRecord &last = records.back();
        QString protocol = last.rule;
        if (!last.mode.isEmpty())
            protocol += (protocol.isEmpty() ? QString() : QStringLiteral(", ")) + last.mode;
        m_latest->setText(tr("Latest verify: <b style=\"color:%1\">%2</b>%3")
                              .arg(VerifyHistoryModel::verdictColor(last.verdict).name(),
                                   VerifyHistoryModel::outcomeText(last).toHtmlEscaped(),
                                   protocol.isEmpty() ? QString() : QStringLiteral(", ") + protocol));
        m_latest->setToolTip(last.reason);
    }
    chart->setTitle(records.empty() ? tr("Verify history") : tr("%1: speedup").arg(m_model->target()));
    if (records.empty())
        return;

    auto *line = new QLineSeries;
    line->setName(tr("speedup"));
    QMap<QString, QScatterSeries *> byVerdict;
    auto *best = new QLineSeries;
    best->setName(tr("best so far"));
    QList<QLineSeries *> intervals; // one vertical bar per verify: its 99% interval
    // The baseline's 1x is always in range: "faster or not" is the chart's first question.
    double lo = 1.0, hi = 1.0, bestSoFar = 0;
    for (size_t i = 0; i < records.size(); ++i) {
        const VerifyRecord &r = records[i];
        const double x = double(i + 1);
        // Incorrect and invalid runs have no speedup to plot; the table says why.
        if (!r.speedup || !(*r.speedup > 0))
            continue;
        const double speedup = *r.speedup;
        line->append(x, speedup);
        QScatterSeries *&points = byVerdict[r.verdict];
        if (!points) {
            points = new QScatterSeries;
            points->setName(r.verdict);
            points->setMarkerSize(10);
            points->setColor(VerifyHistoryModel::verdictColor(r.verdict));
            points->setBorderColor(VerifyHistoryModel::verdictColor(r.verdict).darker(130));
        }
        points->append(x, speedup);
        if (r.ci99 && r.ci99->first > 0 && r.ci99->second >= r.ci99->first) {
            auto *bar = new QLineSeries;
            bar->setName(tr("99% interval"));
            bar->append(x, r.ci99->first);
            bar->append(x, r.ci99->second);
            QPen pen(VerifyHistoryModel::verdictColor(r.verdict));
            pen.setWidth(3);
            bar->setPen(pen);
            intervals.append(bar);
            lo = std::min(lo, r.ci99->first);
            hi = std::max(hi, r.ci99->second);
        }
        // Only a correct, faster result can be the best so far.
        if (r.verdict == QLatin1String("faster"))
            bestSoFar = std::max(bestSoFar, speedup);
        if (bestSoFar > 0)
            best->append(x, bestSoFar);
        lo = std::min(lo, speedup);
        hi = std::max(hi, speedup);
    }
    if (line->count() == 0) {
        delete line;
        delete best;
        qDeleteAll(byVerdict);
        return;
    }
    // Fitted to the speedups and 1x (a lone 0.71x must not zoom to 0.705-0.725x and lose the
    // baseline); log when they span more than 3x, so 0.5x and 12x both stay readable.
    m_logAxis = hi / lo > 3;
    QAbstractAxis *y = nullptr;
    if (m_logAxis) {
        auto *log = new QLogValueAxis;
        log->setBase(10);
        log->setLabelFormat(QStringLiteral("%gx"));
        log->setMinorTickCount(8);
        m_range = {lo / 1.3, hi * 1.3};
        log->setRange(m_range.first, m_range.second);
        y = log;
    } else {
        auto *linear = new QValueAxis;
        const double pad = std::max((hi - lo) * 0.15, hi * 0.01);
        m_range = {std::max(0.0, lo - pad), hi + pad};
        linear->setRange(m_range.first, m_range.second);
        linear->setLabelFormat(QStringLiteral("%.3gx"));
        linear->applyNiceNumbers();
        m_range = {linear->min(), linear->max()};
        y = linear;
    }
    y->setTitleText(tr("speedup"));
    auto *x = new QValueAxis;
    x->setTitleText(tr("verify #"));
    x->setLabelFormat(QStringLiteral("%d"));
    x->setRange(0.5, double(records.size()) + 0.5);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(1);
    x->setTickInterval(std::max(1.0, std::ceil(double(records.size()) / 10)));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);

    QList<QAbstractSeries *> series;
    // The baseline (1x), in a colour both themes show.
    auto *one = new QLineSeries;
    one->setName(tr("baseline 1x"));
    one->append(0.5, 1.0);
    one->append(double(records.size()) + 0.5, 1.0);
    QPen pen(dark ? QColor(200, 200, 210) : QColor(90, 90, 100));
    pen.setWidth(2);
    pen.setStyle(Qt::DotLine);
    one->setPen(pen);
    series.append(one);
    QPen linePen(dark ? QColor(150, 170, 220) : QColor(70, 90, 150));
    linePen.setWidthF(1.5);
    line->setPen(linePen);
    series.append(line);
    if (best->count() > 0) {
        QPen bestPen(QColor(30, 170, 70));
        bestPen.setWidth(2);
        bestPen.setStyle(Qt::DashLine);
        best->setPen(bestPen);
        series.append(best);
    } else {
        delete best;
    }
    for (QLineSeries *bar : std::as_const(intervals))
        series.append(bar);
    for (QScatterSeries *points : std::as_const(byVerdict))
        series.append(points);
    for (QAbstractSeries *s : std::as_const(series)) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
}

} // namespace hotkernel
