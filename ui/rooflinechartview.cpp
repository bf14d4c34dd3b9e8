// SPDX-License-Identifier: Apache-2.0
#include "rooflinechartview.h"

#include "rooflinelabellayout.h"
#include "rooflinescale.h"
#include "rooflineseries.h"
#include "rooflinetext.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QFileDialog>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineF>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMap>
#include <QPainter>
#include <QPolygonF>
#include <QPushButton>
#include <QScatterSeries>
#include <QSvgGenerator>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace hotkernel {

using RooflineScale::Roofs;
using RooflineScale::roofsOf;

RooflineChartView::RooflineChartView(QWidget *parent)
    : QWidget(parent), m_view(new QChartView(new QChart, this)), m_status(new QLabel(this)),
      m_selectedInfo(new QLabel(this))
{
    m_selectedInfo->setObjectName(QStringLiteral("rooflineSelected"));
    m_selectedInfo->setWordWrap(true);
    m_selectedInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_view->setRenderHint(QPainter::Antialiasing);
    // Under the plot, in one row: beside it the legend took a third of the dock's width, and the
    // ceiling labels need that width to sit on their lines without overlapping.
    m_view->chart()->legend()->setAlignment(Qt::AlignBottom);
    m_view->chart()->setMargins(QMargins(4, 4, 8, 4));
    m_view->chart()->layout()->setContentsMargins(0, 0, 0, 0);
    m_view->chart()->setBackgroundRoundness(0);
    // Fits 1280x720 beside eight rows of SASS; below kCompactBelow the plot drops title and legend.
    m_view->setMinimumHeight(110);
    m_view->installEventFilter(this);
    connect(m_view->chart(), &QChart::plotAreaChanged, this, &RooflineChartView::placeLabels);
    auto *png = new QPushButton(tr("Export PNG..."), this);
    auto *svg = new QPushButton(tr("Export SVG..."), this);
    // Modeless save dialogs (open(), not the static getSaveFileName): the GUI thread never waits
    // in a nested event loop.
    const auto exportTo = [this](const QString &file, const QString &filter, bool svgFormat) {
        auto *dialog = new QFileDialog(this, tr("Export roofline"), file, filter);
        dialog->setAcceptMode(QFileDialog::AcceptSave);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, this, [this, svgFormat](const QString &path) {
            if (!(svgFormat ? exportSvg(path) : exportPng(path))) {
                m_status->setTextFormat(Qt::PlainText);
                m_status->setText(
                    tr("Could not write %1: choose a writable folder and export again.").arg(path));
            }
        });
        dialog->open();
    };
    connect(png, &QPushButton::clicked, this,
            [exportTo] { exportTo(QStringLiteral("roofline.png"), tr("PNG image (*.png)"), false); });
    connect(svg, &QPushButton::clicked, this,
            [exportTo] { exportTo(QStringLiteral("roofline.svg"), tr("SVG image (*.svg)"), true); });
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_status, 1);
    bar->addWidget(png);
    bar->addWidget(svg);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_selectedInfo);
    layout->addWidget(m_view, 1);
    layout->addLayout(bar);
    m_status->setWordWrap(true);
    rebuild();
}

QString RooflineChartView::statusText() const
{
    return m_status->text() + QLatin1Char('\n') + m_status->toolTip();
}

QChart *RooflineChartView::chart() const
{
    return m_view->chart();
}

RooflineData RooflineChartView::validated(const RooflineData &data, QStringList *rejected)
{
    return RooflineScale::plottable(data, rejected);
}

void RooflineChartView::setData(const RooflineData &data)
{
    m_rejected.clear();
    m_data = validated(data, &m_rejected);
    rebuild();
}

void RooflineChartView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        rebuild(); // the chart theme follows the palette
    QWidget::changeEvent(event);
}

QColor RooflineChartView::kindColor(const QString &kind)
{
    return RooflineSeries::kindColor(kind);
}

RooflineChartView::RoofAbove RooflineChartView::roofAbove(const RooflinePoint &p) const
{
    return RooflineText::roofAbove(m_data, p);
}

QString RooflineChartView::describe(const RooflinePoint &p) const
{
    return RooflineText::describe(m_data, p);
}

const RooflinePoint *RooflineChartView::selectedPoint() const
{
    const RooflinePoint *selected = nullptr;
    for (const RooflinePoint &p : m_data.points) {
        // The candidate's side first: after a change, that is the kernel that runs now.
        if (p.key == m_selectedKey && (!selected || p.kind != QLatin1String("baseline")))
            selected = &p;
    }
    return selected;
}

QString RooflineChartView::selectedText() const
{
    const RooflinePoint *selected = selectedPoint();
    if (!selected)
        return {};
    return RooflineText::selected(m_data, *selected);
}

void RooflineChartView::updateSelectedInfo()
{
    const QString text = selectedText();
    m_selectedInfo->setText(text.isEmpty() ? tr("Select a kernel (table or plot) for its intensity, rate and "
                                                "share of its roof.")
                                           : text);
}

void RooflineChartView::rebuild()
{
    clearChart();
    if (m_data.ceilings.empty() && m_data.points.empty()) {
        m_title = tr("Roofline");
        m_view->chart()->setTitle(m_title);
        QStringList status{
            tr("No roofline yet: it needs the card's ceilings (gpu_info, calibrate) and kernels "
               "or verify results with flops and bytes per call.")};
        status += m_data.notes;
        m_status->setTextFormat(Qt::PlainText);
        m_status->setText(status.join(QLatin1Char('\n')));
        return;
    }
    m_title = tr("Roofline: %1 %2").arg(m_data.card, m_data.dtype);
    updateCompact();
    m_ranges = fittedRanges(m_data);
    addAxes();
    addCeilings();
    addPoints();
    addSelectionRing();
    updateStatus();
    selectKey(m_selectedKey);
    placeLabels();
}

void RooflineChartView::clearChart()
{
    QChart *chart = m_view->chart();
    chart->setTheme(palette().color(QPalette::Base).lightness() < 128 ? QChart::ChartThemeDark
                                                                      : QChart::ChartThemeLight);
    chart->removeAllSeries();
    for (QAbstractAxis *axis : chart->axes())
        chart->removeAxis(axis);
    m_selectedSeries = nullptr;
    delete m_callout;
    m_callout = nullptr;
    delete m_calloutBox;
    m_calloutBox = nullptr;
    m_coveredByCallout.clear();
    for (LineLabel &l : m_lineLabels)
        delete l.item;
    m_lineLabels.clear();
}

void RooflineChartView::addAxes()
{
    QChart *chart = m_view->chart();
    auto *x = new QLogValueAxis;
    x->setTitleText(tr("Arithmetic intensity (FLOP/byte)"));
    x->setLabelFormat(QStringLiteral("%g"));
    x->setRange(m_ranges.xMin, m_ranges.xMax);
    auto *y = new QLogValueAxis;
    y->setTitleText(tr("FLOP/s"));
    y->setLabelFormat(QStringLiteral("%.0e"));
    y->setRange(m_ranges.yMin, m_ranges.yMax);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    m_yAxis = y;
    m_compact = false;
    updateCompact();
}

void RooflineChartView::attach(QAbstractSeries *series, bool inLegend)
{
    QChart *chart = m_view->chart();
    chart->addSeries(series);
    for (QAbstractAxis *axis : chart->axes()) // x, then y
        series->attachAxis(axis);
    for (QLegendMarker *marker : chart->legend()->markers(series))
        marker->setVisible(inLegend);
}

void RooflineChartView::addCeilings()
{
    const Roofs roofs = roofsOf(m_data);
    int index = 0;
    int computeLabels = 0, bandwidthLabels = 0;
    for (const RooflineCeiling &c : m_data.ceilings) {
        const QLineF line = RooflineScale::ceilingLine(c, roofs, m_ranges);
        QLineSeries *series = RooflineSeries::ceiling(c.label, line, index++);
        // The label on the line says which roof it is; the legend keeps to the points.
        attach(series, false);
        auto *label = new QGraphicsSimpleTextItem(c.label, m_view->chart());
        label->setBrush(series->pen().color());
        label->setZValue(5);
        // Compute roofs near the right end, bandwidth roofs near the left, staggered so that
        // close roofs start apart; placeLabels() moves any that would still overlap.
        const bool compute = c.kind == QLatin1String("compute");
        m_lineLabels.push_back({label, line.p1(), line.p2(),
                                compute ? 0.97 - 0.45 * computeLabels++ : 0.06 + 0.3 * bandwidthLabels++,
                                compute, c.value});
    }
}

void RooflineChartView::addPoints()
{
    const QList<QScatterSeries *> series = RooflineSeries::points(m_data);
    for (QScatterSeries *s : series) {
        attach(s);
        connect(s, &QScatterSeries::clicked, this, [this](const QPointF &value) {
            if (const RooflinePoint *hit = pointNear(value)) {
                selectKey(hit->key);
                Q_EMIT pointSelected(hit->key);
            }
        });
        connect(s, &QScatterSeries::hovered, this, &RooflineChartView::showCallout);
    }
    for (QLineSeries *join : RooflineSeries::changes(m_data, palette().color(QPalette::Text), tr("change")))
        attach(join, false);
}

void RooflineChartView::addSelectionRing()
{
    m_selectedSeries = RooflineSeries::selectionRing(tr("selected"));
    attach(m_selectedSeries);
    // The ring lies over the selected point: hovering it describes the point under it.
    connect(m_selectedSeries, &QScatterSeries::hovered, this, &RooflineChartView::showCallout);
    // A hollow marker's legend swatch is its transparent fill, invisible on a dark plot: the
    // swatches of the hollow series (baselines, the ring) take their outline's colour.
    const QList<QAbstractSeries *> all = m_view->chart()->series();
    for (QAbstractSeries *series : all) {
        auto *scatter = qobject_cast<QScatterSeries *>(series);
        if (scatter && (scatter == m_selectedSeries || scatter->name() == QLatin1String("baseline")))
            showOutlineInLegend(scatter);
    }
}

void RooflineChartView::showOutlineInLegend(QScatterSeries *hollow)
{
    for (QLegendMarker *marker : m_view->chart()->legend()->markers(hollow))
        marker->setBrush(hollow->pen().color());
}

void RooflineChartView::updateStatus()
{
    if (m_data.ceilings.empty() && m_data.points.empty())
        return; // rebuild() said why there is no plot
    QStringList status;
    QMap<QString, int> counts;
    for (const RooflinePoint &p : m_data.points)
        ++counts[p.kind];
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        parts.append(QStringLiteral("%1 %2").arg(it.value()).arg(it.key()));
    const QString points =
        tr("%n point(s)", nullptr, int(m_data.points.size())) +
        (parts.isEmpty() ? QString() : QStringLiteral(": ") + parts.join(QStringLiteral(", ")));
    // The rest of the legend in the tooltip: the plot keeps its height for the ceiling labels.
    QStringList tip{tr("A dashed line joins one kernel's baseline and candidate points; the scripts' "
                       "points are the latest verify's. Hover a point for its numbers.")};
    if (m_compact) {
        // The chart's title and legend make way for the plot: one line says both.
        const auto swatch = [](const QString &kind, const QString &glyph) {
            return QStringLiteral("<span style=\"color:%1\">%2</span> %3")
                .arg(kindColor(kind).name(), glyph, kind);
        };
        status.append(QStringLiteral("%1 %2: %3, %4, <span style=\"color:#dc1e1e\">○</span> %5")
                          .arg(m_data.card.toHtmlEscaped(), m_data.dtype.toHtmlEscaped(),
                               swatch(QStringLiteral("baseline"), QStringLiteral("□")),
                               swatch(QStringLiteral("candidate"), QStringLiteral("●")), tr("selected")));
        tip.prepend(points + QLatin1Char('.'));
    } else {
        status.append(points.toHtmlEscaped() + tr(". Hollow: baseline, filled: candidate."));
    }
    if (!m_droppedLabels.isEmpty())
        tip.append(tr("No room on the plot for the label of: %1 (a larger pane shows them).")
                       .arg(m_droppedLabels.join(QStringLiteral(", "))));
    // Which kernels have no point and why: one line here, the reasons in the tooltip, so the
    // plot keeps its height for the ceiling labels.
    if (!m_data.notes.isEmpty()) {
        status.append(
            tr("%n note(s) on kernels without a point (hover here).", nullptr, int(m_data.notes.size())));
        tip += m_data.notes;
    }
    m_status->setToolTip(tip.join(QLatin1Char('\n')));
    if (!m_rejected.isEmpty())
        status.append(
            tr("Left out (not > 0): %1").arg(m_rejected.join(QStringLiteral("; ")).toHtmlEscaped()));
    m_status->setTextFormat(Qt::RichText);
    m_status->setText(status.join(QStringLiteral("<br>")));
}

bool RooflineChartView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view && event->type() == QEvent::Resize)
        updateCompact();
    return QWidget::eventFilter(watched, event);
}

void RooflineChartView::updateCompact()
{
    // A short plot (the window at 1280x720) drops the chart's title and legend: they took 45 of
    // its 170 px. The status line under it names the card and the point kinds instead.
    const bool compact = m_view->height() < kCompactBelow;
    QChart *chart = m_view->chart();
    chart->setTitle(compact ? QString() : m_title);
    chart->legend()->setVisible(!compact);
    // The units move from the axis titles into the tick labels: a title line is a sixth of the plot.
    const auto axes = chart->axes();
    for (QAbstractAxis *axis : axes) {
        auto *log = qobject_cast<QLogValueAxis *>(axis);
        if (!log)
            continue;
        const bool y = log == m_yAxis;
        log->setTitleVisible(!compact);
        log->setLabelFormat(y ? (compact ? QStringLiteral("%.0e FLOP/s") : QStringLiteral("%.0e"))
                              : (compact ? QStringLiteral("%g FLOP/B") : QStringLiteral("%g")));
    }
    if (compact != m_compact) {
        m_compact = compact;
        updateStatus();
    }
}

void RooflineChartView::placeLabels()
{
    QChart *chart = m_view->chart();
    showCallout({}, false); // placed for the old plot, and the labels it covered are placed again
    fitTicks();
    // The selected kernel's roof first (its label is the one the numbers above name), then the
    // roofs that make the roofline (the highest of each kind), then the rest in the data's order:
    // in a small plot the last ones are dropped rather than laid over another.
    const RooflinePoint *selected = selectedPoint();
    const QString selectedRoof = selected ? roofAbove(*selected).label : QString();
    const Roofs roofs = roofsOf(m_data);
    std::vector<size_t> order(m_lineLabels.size());
    std::iota(order.begin(), order.end(), size_t(0));
    const auto rank = [&](const LineLabel &l) {
        if (!selectedRoof.isEmpty() && l.item->text() == selectedRoof)
            return 0;
        return l.value == (l.rightAligned ? roofs.compute : roofs.bandwidth) ? 1 : 2;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return rank(m_lineLabels[a]) < rank(m_lineLabels[b]); });
    std::vector<RooflineLabelLayout::Request> requests;
    std::vector<QPointF> points;
    for (size_t i : order) {
        const LineLabel &l = m_lineLabels[i];
        requests.push_back({QLineF(chart->mapToPosition(l.from), chart->mapToPosition(l.to)),
                            l.item->boundingRect().size(), l.at, l.rightAligned, rank(l) == 0});
    }
    for (const RooflinePoint &p : m_data.points)
        points.push_back(chart->mapToPosition(QPointF(p.intensity, p.flopsPerSecond)));
    const auto places = RooflineLabelLayout::placeLabels(requests, chart->plotArea(), points);
    QStringList dropped;
    for (size_t k = 0; k < order.size(); ++k) {
        QGraphicsSimpleTextItem *item = m_lineLabels[order[k]].item;
        item->setRotation(places[k].angle);
        item->setPos(places[k].origin);
        // No free place (a plot too small for all the labels): the line goes without its label
        // rather than under another one; the status tooltip names it.
        item->setVisible(places[k].visible);
        if (!places[k].visible)
            dropped.append(item->text());
    }
    m_droppedLabels = dropped;
    updateStatus();
}

void RooflineChartView::fitTicks()
{
    // Fewer y ticks on a short plot, each decade's label whole: Qt Charts elides a label that
    // does not get its own height ("..." on all of them at 1280x720).
    auto *y = m_yAxis.data();
    if (!y)
        return;
    const double decades = std::log10(m_ranges.yMax / m_ranges.yMin);
    const double labelHeight = QFontMetricsF(y->labelsFont()).height();
    const int k =
        RooflineLabelLayout::decadesPerTick(decades, m_view->chart()->plotArea().height(), labelHeight);
    const double base = std::pow(10.0, k);
    if (y->base() != base) {
        y->setBase(base);
        // Now, not at the next event: a picture taken right after a resize shows the new ticks.
        // The plot keeps its height (only the labels' width changes), so this settles at once.
        m_view->chart()->layout()->activate();
    }
}

QList<QLineF> RooflineChartView::ceilingLines() const
{
    QChart *chart = m_view->chart();
    QList<QLineF> lines;
    for (const LineLabel &l : m_lineLabels)
        lines.append(QLineF(chart->mapToScene(chart->mapToPosition(l.from)),
                            chart->mapToScene(chart->mapToPosition(l.to))));
    return lines;
}

QList<QPolygonF> RooflineChartView::ceilingLabelShapes() const
{
    QList<QPolygonF> shapes;
    for (const LineLabel &l : m_lineLabels) {
        if (l.item->isVisible())
            shapes.append(l.item->mapToScene(l.item->boundingRect()));
    }
    return shapes;
}

const RooflinePoint *RooflineChartView::pointNear(const QPointF &value) const
{
    const RooflinePoint *best = nullptr;
    double bestDistance = std::numeric_limits<double>::max();
    for (const RooflinePoint &p : m_data.points) {
        const double d =
            std::hypot(std::log10(p.intensity / value.x()), std::log10(p.flopsPerSecond / value.y()));
        if (d < bestDistance) {
            bestDistance = d;
            best = &p;
        }
    }
    return bestDistance < 0.2 ? best : nullptr;
}

void RooflineChartView::selectKey(const QString &key)
{
    m_selectedKey.clear();
    if (!m_selectedSeries)
        return;
    m_selectedSeries->clear();
    for (const RooflinePoint &p : m_data.points) {
        if (!key.isEmpty() && p.key == key) {
            m_selectedKey = key;
            m_selectedSeries->append(p.intensity, p.flopsPerSecond);
        }
    }
    updateSelectedInfo();
    placeLabels(); // the selected kernel's roof keeps its label first
}

void RooflineChartView::showCallout(const QPointF &value, bool show)
{
    if (!show) {
        if (m_callout)
            m_callout->hide();
        if (m_calloutBox)
            m_calloutBox->hide();
        for (QGraphicsSimpleTextItem *label : std::as_const(m_coveredByCallout))
            label->show();
        m_coveredByCallout.clear();
        return;
    }
    if (const RooflinePoint *p = pointNear(value))
        showCalloutFor(*p);
}

void RooflineChartView::showCalloutFor(const RooflinePoint &p)
{
    QChart *chart = m_view->chart();
    if (!m_callout) {
        m_calloutBox = new QGraphicsRectItem(chart);
        m_calloutBox->setZValue(9);
        m_callout = new QGraphicsSimpleTextItem(chart);
        m_callout->setZValue(10);
    }
    showCallout({}, false); // labels an earlier callout covered come back first
    // On the plot's own background with a frame, so the ceilings and their labels do not show
    // through it.
    m_calloutBox->setBrush(palette().color(QPalette::Base));
    m_calloutBox->setPen(QPen(palette().color(QPalette::Mid)));
    m_callout->setBrush(palette().color(QPalette::Text));
    const QRectF plot = chart->plotArea();
    const double pad = 4;
    m_callout->setText(describe(p));
    if (m_callout->boundingRect().height() + 2 * pad > plot.height() / 2) {
        // The five lines would hide half a short plot (1280x720): two, the numbers in one.
        m_callout->setText(RooflineText::describeShort(m_data, p));
    }
    if (m_callout->boundingRect().width() + 2 * pad > plot.width()) {
        // A demangled template name can be wider than the plot: each line cut at its end.
        const QFontMetricsF metrics(m_callout->font());
        QStringList lines = m_callout->text().split(QLatin1Char('\n'));
        for (QString &line : lines)
            line = metrics.elidedText(line, Qt::ElideRight, plot.width() - 2 * pad - 2);
        m_callout->setText(lines.join(QLatin1Char('\n')));
    }
    const QSizeF size = m_callout->boundingRect().size() + QSizeF(2 * pad, 2 * pad);
    const QPointF at = chart->mapToPosition(QPointF(p.intensity, p.flopsPerSecond));
    // Inside the plot (the axis labels lie outside it), nearest the point, off the ceiling labels;
    // where no such place exists, the labels it covers make way while it shows.
    QList<QPolygonF> labels;
    for (const LineLabel &l : m_lineLabels) {
        if (l.item->isVisible())
            labels.append(l.item->mapToParent(l.item->boundingRect()));
    }
    bool clear = false;
    const QRectF chosen = RooflineLabelLayout::placeCallout(size, at, plot, labels, &clear);
    if (!clear) {
        for (const LineLabel &l : m_lineLabels) {
            if (l.item->isVisible() &&
                l.item->mapToParent(l.item->boundingRect()).intersects(QPolygonF(chosen))) {
                l.item->hide();
                m_coveredByCallout.append(l.item);
            }
        }
    }
    m_calloutBox->setRect(chosen);
    m_callout->setPos(chosen.topLeft() + QPointF(pad, pad));
    m_calloutBox->show();
    m_callout->show();
}

QRectF RooflineChartView::calloutShape() const
{
    if (!m_calloutBox || !m_calloutBox->isVisible())
        return {};
    return m_calloutBox->mapToScene(m_calloutBox->rect()).boundingRect();
}

bool RooflineChartView::exportPng(const QString &path) const
{
    return m_view->grab().save(path, "PNG");
}

bool RooflineChartView::exportSvg(const QString &path) const
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(m_view->size());
    generator.setViewBox(m_view->rect());
    generator.setTitle(m_view->chart()->title());
    QPainter painter;
    if (!painter.begin(&generator))
        return false;
    m_view->render(&painter);
    return painter.end();
}

} // namespace hotkernel
