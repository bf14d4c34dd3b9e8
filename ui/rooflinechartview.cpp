// SPDX-License-Identifier: Apache-2.0
#include "rooflinechartview.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QFileDialog>
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

namespace hotkernel {

namespace {

bool positive(double v)
{
    return std::isfinite(v) && v > 0;
}

QString flopsText(double v)
{
    if (v >= 1e12)
        return QStringLiteral("%1 TFLOP/s").arg(v / 1e12, 0, 'g', 4);
    if (v >= 1e9)
        return QStringLiteral("%1 GFLOP/s").arg(v / 1e9, 0, 'g', 4);
    return QStringLiteral("%1 FLOP/s").arg(v, 0, 'g', 4);
}

} // namespace

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
    m_view->setMinimumHeight(170); // fits 1280x720 beside the SASS pane
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
            if (!(svgFormat ? exportSvg(path) : exportPng(path)))
                m_status->setText(
                    tr("Could not write %1: choose a writable folder and export again.").arg(path));
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
    RooflineData out = data;
    out.ceilings.clear();
    out.points.clear();
    for (const RooflineCeiling &c : data.ceilings) {
        if (positive(c.value))
            out.ceilings.push_back(c);
        else if (rejected)
            rejected->append(QStringLiteral("ceiling %1 (%2)").arg(c.label).arg(c.value));
    }
    for (const RooflinePoint &p : data.points) {
        if (positive(p.intensity) && positive(p.flopsPerSecond))
            out.points.push_back(p);
        else if (rejected)
            rejected->append(QStringLiteral("point %1 (%2 FLOP/B, %3 FLOP/s)")
                                 .arg(p.label)
                                 .arg(p.intensity)
                                 .arg(p.flopsPerSecond));
    }
    return out;
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
    // Mid-tone hues that read on white and on the dark theme's near-black alike.
    if (kind == QLatin1String("baseline"))
        return QColor(235, 125, 20);
    if (kind == QLatin1String("candidate"))
        return QColor(40, 165, 75);
    return QColor(45, 125, 210); // kernels
}

namespace {

// One colour and one dash per ceiling, in order; none of them the point colours.
const QColor kCeilingColors[] = {QColor(200, 40, 60), QColor(150, 90, 210), QColor(20, 160, 170),
                                 QColor(190, 140, 0), QColor(220, 80, 170), QColor(110, 120, 135)};
const Qt::PenStyle kCeilingDashes[] = {Qt::SolidLine, Qt::DashLine,       Qt::DashDotLine,
                                       Qt::DotLine,   Qt::DashDotDotLine, Qt::SolidLine};

struct Roofs
{
    double compute = 0;   // highest
    double bandwidth = 0; // highest
};

Roofs roofsOf(const RooflineData &data)
{
    Roofs r;
    for (const auto &c : data.ceilings)
        (c.kind == QLatin1String("compute") ? r.compute : r.bandwidth) =
            std::max(c.kind == QLatin1String("compute") ? r.compute : r.bandwidth, c.value);
    return r;
}

// Where a bandwidth roof stops (it meets the highest compute roof) and where a compute roof starts.
double bandwidthEnd(double bandwidth, const Roofs &roofs, double xMax)
{
    return roofs.compute > 0 ? std::min(roofs.compute / bandwidth, xMax) : xMax;
}

double computeStart(double compute, const Roofs &roofs, double xMin)
{
    return roofs.bandwidth > 0 ? std::max(compute / roofs.bandwidth, xMin) : xMin;
}

} // namespace

RooflineChartView::Ranges RooflineChartView::fittedRanges(const RooflineData &data)
{
    Ranges r;
    const Roofs roofs = roofsOf(data);
    double xLo = std::numeric_limits<double>::max(), xHi = 0;
    for (const auto &p : data.points) {
        xLo = std::min(xLo, p.intensity);
        xHi = std::max(xHi, p.intensity);
    }
    // The ridges: where each roof meets the highest roof of the other kind.
    for (const auto &c : data.ceilings) {
        const double ridge = c.kind == QLatin1String("compute")
                                 ? (roofs.bandwidth > 0 ? c.value / roofs.bandwidth : 0)
                                 : (roofs.compute > 0 ? roofs.compute / c.value : 0);
        if (ridge > 0) {
            xLo = std::min(xLo, ridge / 30);
            xHi = std::max(xHi, ridge * 10);
        }
    }
    if (xHi <= 0) {
        xLo = 0.01;
        xHi = 1000;
    }
    // A quarter decade of room each side, so points on the frame stay visible.
    r.xMin = std::pow(10, std::log10(xLo) - 0.25);
    r.xMax = std::pow(10, std::log10(xHi) + 0.25);

    double yLo = std::numeric_limits<double>::max(), yHi = 0;
    for (const auto &p : data.points) {
        yLo = std::min(yLo, p.flopsPerSecond);
        yHi = std::max(yHi, p.flopsPerSecond);
    }
    for (const auto &c : data.ceilings) {
        if (c.kind == QLatin1String("compute")) {
            yHi = std::max(yHi, c.value);
            yLo = std::min(yLo, c.value / 100);
        } else {
            yLo = std::min(yLo, c.value * r.xMin);
            yHi = std::max(yHi, c.value * bandwidthEnd(c.value, roofs, r.xMax));
        }
    }
    if (yHi <= 0) {
        yLo = 1e9;
        yHi = 1e15;
    }
    r.yMin = std::pow(10, std::log10(yLo) - 0.25);
    r.yMax = std::pow(10, std::log10(yHi) + 0.6); // room for the labels of the close top roofs
    return r;
}

RooflineChartView::RoofAbove RooflineChartView::roofAbove(const RooflinePoint &p) const
{
    const RooflineCeiling *compute = nullptr;
    const RooflineCeiling *bandwidth = nullptr;
    for (const RooflineCeiling &c : m_data.ceilings) {
        const RooflineCeiling *&best = c.kind == QLatin1String("compute") ? compute : bandwidth;
        if (!best || c.value > best->value)
            best = &c;
    }
    if (compute && (!bandwidth || compute->value <= bandwidth->value * p.intensity))
        return {compute->value, compute->label};
    if (bandwidth)
        return {bandwidth->value * p.intensity, bandwidth->label};
    return {};
}

QString RooflineChartView::describe(const RooflinePoint &p) const
{
    const RoofAbove roof = roofAbove(p);
    QString text = QStringLiteral("%1 (%2)\n%3 FLOP/B\n%4\n%5 GB/s")
                       .arg(p.label, p.kind)
                       .arg(p.intensity, 0, 'g', 3)
                       .arg(flopsText(p.flopsPerSecond))
                       .arg(p.flopsPerSecond / p.intensity / 1e9, 0, 'f', 1);
    if (roof.value > 0)
        text += tr("\n%1 % of the roof here: %2 (%3)")
                    .arg(100 * p.flopsPerSecond / roof.value, 0, 'f', 1)
                    .arg(roof.label, flopsText(roof.value));
    return text;
}

QString RooflineChartView::selectedText() const
{
    const RooflinePoint *selected = nullptr;
    for (const RooflinePoint &p : m_data.points) {
        // The candidate's side first: after a change, that is the kernel that runs now.
        if (p.key == m_selectedKey && (!selected || p.kind != QLatin1String("baseline")))
            selected = &p;
    }
    if (!selected)
        return {};
    const RoofAbove roof = roofAbove(*selected);
    QString text = tr("<b>%1</b> (%2): %3 FLOP/B, %4, %5 GB/s")
                       .arg(selected->label.toHtmlEscaped(), selected->kind)
                       .arg(selected->intensity, 0, 'g', 3)
                       .arg(flopsText(selected->flopsPerSecond))
                       .arg(selected->flopsPerSecond / selected->intensity / 1e9, 0, 'f', 0);
    if (roof.value > 0)
        text += tr(": <b>%1% of the %2 roof</b>")
                    .arg(100 * selected->flopsPerSecond / roof.value, 0, 'f', 0)
                    .arg(roof.label.toHtmlEscaped());
    return text;
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
    for (LineLabel &l : m_lineLabels)
        delete l.item;
    m_lineLabels.clear();

    if (m_data.ceilings.empty() && m_data.points.empty()) {
        chart->setTitle(tr("Roofline"));
        QStringList status{
            tr("No roofline yet: it needs the card's ceilings (gpu_info, calibrate) and kernels "
               "or verify results with flops and bytes per call.")};
        status += m_data.notes;
        m_status->setText(status.join(QLatin1Char('\n')));
        return;
    }
    chart->setTitle(tr("Roofline: %1 %2").arg(m_data.card, m_data.dtype));
    m_ranges = fittedRanges(m_data);
    const Roofs roofs = roofsOf(m_data);

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

    auto attach = [&](QAbstractSeries *series) {
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    };
    int index = 0;
    int computeLabels = 0, bandwidthLabels = 0;
    for (const RooflineCeiling &c : m_data.ceilings) {
        auto *line = new QLineSeries;
        line->setName(c.label);
        QPointF from, to;
        if (c.kind == QLatin1String("compute")) {
            from = QPointF(computeStart(c.value, roofs, m_ranges.xMin), c.value);
            to = QPointF(m_ranges.xMax, c.value);
        } else {
            const double end = bandwidthEnd(c.value, roofs, m_ranges.xMax);
            from = QPointF(m_ranges.xMin, c.value * m_ranges.xMin);
            to = QPointF(end, c.value * end);
        }
        line->append(from);
        line->append(to);
        const int n = int(std::size(kCeilingColors));
        QPen pen(kCeilingColors[index % n]);
        pen.setWidthF(2);
        pen.setStyle(kCeilingDashes[index % n]);
        line->setPen(pen);
        attach(line);
        // The label on the line says which roof it is; the legend keeps to the points.
        for (QLegendMarker *marker : chart->legend()->markers(line))
            marker->setVisible(false);
        auto *label = new QGraphicsSimpleTextItem(c.label, chart);
        label->setBrush(pen.color());
        label->setZValue(5);
        // Compute roofs near the right end, bandwidth roofs near the left, staggered so that
        // close roofs start apart; placeLabels() moves any that would still overlap.
        const bool compute = c.kind == QLatin1String("compute");
        m_lineLabels.push_back({label, from, to,
                                compute ? 0.97 - 0.45 * computeLabels++ : 0.06 + 0.3 * bandwidthLabels++,
                                compute});
        ++index;
    }
    // Baselines first and larger, hollow: a candidate on the same spot sits inside, not on top.
    QMap<QString, QScatterSeries *> byKind;
    for (const QString &kind :
         {QStringLiteral("baseline"), QStringLiteral("kernel"), QStringLiteral("candidate")}) {
        if (std::none_of(m_data.points.begin(), m_data.points.end(),
                         [&kind](const RooflinePoint &p) { return p.kind == kind; }))
            continue;
        auto *series = new QScatterSeries;
        series->setName(kind);
        const QColor color = kindColor(kind);
        if (kind == QLatin1String("baseline")) {
            series->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
            series->setMarkerSize(16);
            series->setColor(Qt::transparent);
            series->setPen(QPen(color, 3));
        } else if (kind == QLatin1String("kernel")) {
            series->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
            series->setMarkerSize(13);
            series->setColor(color);
            series->setPen(QPen(color.darker(140), 1));
        } else {
            series->setMarkerShape(QScatterSeries::MarkerShapeCircle);
            series->setMarkerSize(9);
            series->setColor(color);
            series->setPen(QPen(color.darker(140), 1));
        }
        byKind.insert(kind, series);
    }
    for (const RooflinePoint &p : m_data.points) {
        QScatterSeries *&series = byKind[p.kind];
        if (!series) {
            series = new QScatterSeries;
            series->setName(p.kind);
            series->setMarkerSize(10);
            series->setColor(kindColor(p.kind));
        }
        series->append(p.intensity, p.flopsPerSecond);
    }
    QList<QScatterSeries *> ordered;
    for (const QString &kind :
         {QStringLiteral("baseline"), QStringLiteral("kernel"), QStringLiteral("candidate")})
        if (byKind.contains(kind))
            ordered.append(byKind.value(kind));
    for (auto it = byKind.cbegin(); it != byKind.cend(); ++it)
        if (!ordered.contains(it.value()))
            ordered.append(it.value());
    for (QScatterSeries *series : std::as_const(ordered)) {
        attach(series);
        connect(series, &QScatterSeries::clicked, this, [this](const QPointF &value) {
            if (const RooflinePoint *hit = pointNear(value)) {
                selectKey(hit->key);
                Q_EMIT pointSelected(hit->key);
            }
        });
        connect(series, &QScatterSeries::hovered, this, &RooflineChartView::showCallout);
    }
    // One kernel (or script) on both sides: a line from its baseline to its candidate point.
    QMap<QString, std::pair<const RooflinePoint *, const RooflinePoint *>> sides;
    for (const RooflinePoint &p : m_data.points) {
        if (p.kind == QLatin1String("baseline"))
            sides[p.key].first = &p;
        else if (p.kind == QLatin1String("candidate"))
            sides[p.key].second = &p;
    }
    for (auto it = sides.cbegin(); it != sides.cend(); ++it) {
        if (!it->first || !it->second)
            continue;
        auto *join = new QLineSeries;
        join->setName(tr("change"));
        join->append(it->first->intensity, it->first->flopsPerSecond);
        join->append(it->second->intensity, it->second->flopsPerSecond);
        QPen pen(palette().color(QPalette::Text));
        pen.setWidthF(1.2);
        pen.setStyle(Qt::DashLine);
        join->setPen(pen);
        attach(join);
        for (QLegendMarker *marker : chart->legend()->markers(join))
            marker->setVisible(false);
    }
    m_selectedSeries = new QScatterSeries;
    m_selectedSeries->setName(tr("selected"));
    m_selectedSeries->setMarkerSize(22);
    m_selectedSeries->setColor(Qt::transparent);
    m_selectedSeries->setBorderColor(QColor(220, 30, 30));
    QPen pen(QColor(220, 30, 30));
    pen.setWidth(3);
    m_selectedSeries->setPen(pen);
    attach(m_selectedSeries);
    // The ring lies over the selected point: hovering it describes the point under it.
    connect(m_selectedSeries, &QScatterSeries::hovered, this, &RooflineChartView::showCallout);
    // A hollow marker's legend swatch is its transparent fill, invisible on a dark plot: the
    // swatches of the hollow series take their outline's colour.
    for (QScatterSeries *hollow : {byKind.value(QStringLiteral("baseline")), m_selectedSeries}) {
        if (!hollow)
            continue;
        for (QLegendMarker *marker : m_view->chart()->legend()->markers(hollow))
            marker->setBrush(hollow->pen().color());
    }
    QStringList status;
    QMap<QString, int> counts;
    for (const RooflinePoint &p : m_data.points)
        ++counts[p.kind];
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        parts.append(QStringLiteral("%1 %2").arg(it.value()).arg(it.key()));
    status.append(tr("%n point(s)", nullptr, int(m_data.points.size())) +
                  (parts.isEmpty() ? QString() : QStringLiteral(": ") + parts.join(QStringLiteral(", "))) +
                  tr(". Hollow: baseline, filled: candidate."));
    // The rest of the legend in the tooltip: the plot keeps its height for the ceiling labels.
    QStringList tip{tr("A dashed line joins one kernel's baseline and candidate points; the scripts' "
                       "points are the latest verify's. Hover a point for its numbers.")};
    // Which kernels have no point and why: one line here, the reasons in the tooltip, so the
    // plot keeps its height for the ceiling labels.
    if (!m_data.notes.isEmpty()) {
        status.append(
            tr("%n note(s) on kernels without a point (hover here).", nullptr, int(m_data.notes.size())));
        tip += m_data.notes;
    }
    m_status->setToolTip(tip.join(QLatin1Char('\n')));
    if (!m_rejected.isEmpty())
        status.append(tr("Left out (not > 0): %1").arg(m_rejected.join(QStringLiteral("; "))));
    m_status->setText(status.join(QLatin1Char('\n')));
    selectKey(m_selectedKey);
    placeLabels();
}

void RooflineChartView::placeLabels()
{
    QChart *chart = m_view->chart();
    const QRectF plot = chart->plotArea();
    std::vector<QPolygonF> taken;
    for (const LineLabel &l : m_lineLabels) {
        const QPointF a = chart->mapToPosition(l.from);
        const QPointF b = chart->mapToPosition(l.to);
        // Straight in log-log, so straight in pixels: a place on the line is a + t (b - a).
        const double angle = std::abs(a.y() - b.y()) < 0.5 ? 0.0 : std::atan2(b.y() - a.y(), b.x() - a.x());
        const double cs = std::cos(angle), sn = std::sin(angle);
        const QRectF box = l.item->boundingRect();
        const auto rotated = [cs, sn](double u, double v) {
            return QPointF(u * cs - v * sn, u * sn + v * cs);
        };
        const auto shapeAt = [&](const QPointF &origin, double pad) {
            return QPolygonF({origin + rotated(-pad, -pad), origin + rotated(box.width() + pad, -pad),
                              origin + rotated(box.width() + pad, box.height() + pad),
                              origin + rotated(-pad, box.height() + pad)});
        };
        // First the preferred place, then ever further along the line; at each place above the
        // line, then below it. The first place inside the plot that no earlier label covers wins.
        const double at = std::clamp(l.at, 0.0, 1.0);
        std::vector<double> along{at};
        for (int step = 1; step <= 25; ++step) {
            for (double t : {at - 0.04 * step, at + 0.04 * step}) {
                if (t >= 0 && t <= 1)
                    along.push_back(t);
            }
        }
        // Another roof's line or a point under a label makes it hard to read: avoided where the plot
        // leaves room (strict pass), accepted where it does not (second pass). Own line excluded.
        const auto crossesLine = [&](const QPointF &origin) {
            const QPolygonF shape = shapeAt(origin, 0);
            for (const LineLabel &other : m_lineLabels) {
                if (&other == &l)
                    continue;
                const QPointF p = chart->mapToPosition(other.from);
                const QPointF q = chart->mapToPosition(other.to);
                const int samples = std::max(2, int(QLineF(p, q).length() / 3));
                for (int i = 0; i <= samples; ++i) {
                    if (shape.containsPoint(p + (q - p) * (double(i) / samples), Qt::OddEvenFill))
                        return true;
                }
            }
            // The points too: a label must not hide a kernel (the selection ring reaches 12 px out).
            const QPolygonF padded = shapeAt(origin, 12);
            for (const RooflinePoint &point : m_data.points) {
                if (padded.containsPoint(chart->mapToPosition(QPointF(point.intensity, point.flopsPerSecond)),
                                         Qt::OddEvenFill))
                    return true;
            }
            return false;
        };
        // Just above or below its line first; where two roofs run a few pixels apart (DRAM and
        // the measured copy rate) neither side of the lower one is free of the upper one, so the
        // label may stand one label's height further off, clear of both lines, before it is
        // allowed onto another roof's line.
        const std::vector<double> near{-(box.height() + 1), 1.0};
        const std::vector<double> further{-(2 * box.height() + 4), box.height() + 4};
        struct Pass
        {
            bool strict;
            const std::vector<double> *offsets;
        };
        bool placed = false;
        for (const Pass &pass : {Pass{true, &near}, Pass{true, &further}, Pass{false, &near}}) {
            const bool strict = pass.strict;
            for (double t : along) {
                const QPointF anchor = a + t * (b - a);
                for (double offset : *pass.offsets) {
                    const QPointF origin = anchor + rotated(l.rightAligned ? -box.width() : 0.0, offset);
                    const QPolygonF shape = shapeAt(origin, 2);
                    const bool inside = std::all_of(shape.cbegin(), shape.cend(),
                                                    [&plot](const QPointF &p) { return plot.contains(p); });
                    if (!inside || std::any_of(taken.cbegin(), taken.cend(),
                                               [&shape](const QPolygonF &o) { return o.intersects(shape); }))
                        continue;
                    if (strict && crossesLine(origin))
                        continue;
                    l.item->setRotation(angle * 180 / M_PI);
                    l.item->setPos(origin);
                    taken.push_back(shape);
                    placed = true;
                    break;
                }
                if (placed)
                    break;
            }
            if (placed)
                break;
        }
        // No free place (a plot too small for all the labels): the legend-less line goes without
        // its label rather than under another one.
        l.item->setVisible(placed);
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
}

void RooflineChartView::showCallout(const QPointF &value, bool show)
{
    if (!show) {
        if (m_callout)
            m_callout->hide();
        if (m_calloutBox)
            m_calloutBox->hide();
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
    // On the plot's own background with a frame, so the ceilings and their labels do not show
    // through it.
    m_calloutBox->setBrush(palette().color(QPalette::Base));
    m_calloutBox->setPen(QPen(palette().color(QPalette::Mid)));
    m_callout->setBrush(palette().color(QPalette::Text));
    m_callout->setText(describe(p));
    const QRectF text = m_callout->boundingRect();
    const QPointF at = chart->mapToPosition(QPointF(p.intensity, p.flopsPerSecond));
    const QRectF plot = chart->plotArea();
    // The first corner around the point where the box stays in the plot and off every ceiling
    // label; else the one that stays in the plot.
    const QList<QPolygonF> labels = ceilingLabelShapes();
    const double pad = 4, gap = 14;
    // Beside the point first, then further off (a marker's own neighbourhood is where the labels
    // of the roof above it sit).
    QList<QPointF> offsets;
    for (const double dy :
         {-text.height() - gap, gap, -text.height() - 4 * gap, 4 * gap, -text.height() / 2}) {
        for (const double dx :
             {gap, -text.width() - gap, -text.width() / 2, 4 * gap, -text.width() - 4 * gap})
            offsets.append(QPointF(dx, dy));
    }
    QRectF chosen;
    for (int pass = 0; pass < 2 && chosen.isNull(); ++pass) {
        for (const QPointF &o : offsets) {
            const QRectF box = QRectF(at + o, text.size()).adjusted(-pad, -pad, pad, pad);
            if (!plot.contains(box))
                continue;
            const QPolygonF scene = chart->mapToScene(box);
            if (pass == 0 && std::any_of(labels.cbegin(), labels.cend(),
                                         [&scene](const QPolygonF &l) { return l.intersects(scene); }))
                continue;
            chosen = box;
            break;
        }
    }
    if (chosen.isNull()) {
        // No corner inside the plot (a small dock): kept inside the chart, moved in from its edges.
        chosen = QRectF(at + offsets.first(), text.size()).adjusted(-pad, -pad, pad, pad);
        const QRectF bounds = chart->rect();
        chosen.moveLeft(std::clamp(chosen.left(), bounds.left(),
                                   std::max(bounds.left(), bounds.right() - chosen.width())));
        chosen.moveTop(std::clamp(chosen.top(), bounds.top(),
                                  std::max(bounds.top(), bounds.bottom() - chosen.height())));
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
