// SPDX-License-Identifier: Apache-2.0
#include "rooflinechartview.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QFileDialog>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMap>
#include <QPainter>
#include <QPushButton>
#include <QScatterSeries>
#include <QSvgGenerator>
#include <QVBoxLayout>

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
    : QWidget(parent), m_view(new QChartView(new QChart, this)), m_status(new QLabel(this))
{
    m_view->setRenderHint(QPainter::Antialiasing);
    // Beside the plot, not under it: the dock is wider than tall, and the log axes need the height.
    m_view->chart()->legend()->setAlignment(Qt::AlignRight);
    m_view->setMinimumHeight(260);
    auto *png = new QPushButton(tr("Export PNG..."), this);
    auto *svg = new QPushButton(tr("Export SVG..."), this);
    connect(png, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export roofline"), QStringLiteral("roofline.png"), tr("PNG image (*.png)"));
        if (!path.isEmpty())
            exportPng(path);
    });
    connect(svg, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export roofline"), QStringLiteral("roofline.svg"), tr("SVG image (*.svg)"));
        if (!path.isEmpty())
            exportSvg(path);
    });
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_status, 1);
    bar->addWidget(png);
    bar->addWidget(svg);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_view, 1);
    layout->addLayout(bar);
    m_status->setWordWrap(true);
    rebuild();
}

QString RooflineChartView::statusText() const
{
    return m_status->text();
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

    // Axis ranges cover every point and every ridge, a decade of margin each side.
    double xMin = std::numeric_limits<double>::max(), xMax = 0, yMin = std::numeric_limits<double>::max(),
           yMax = 0;
    double maxCompute = 0, maxBandwidth = 0;
    for (const auto &c : m_data.ceilings) {
        double &max = c.kind == QLatin1String("compute") ? maxCompute : maxBandwidth;
        max = std::max(max, c.value);
    }
    for (const auto &p : m_data.points) {
        xMin = std::min(xMin, p.intensity);
        xMax = std::max(xMax, p.intensity);
        yMin = std::min(yMin, p.flopsPerSecond);
        yMax = std::max(yMax, p.flopsPerSecond);
    }
    if (maxCompute > 0 && maxBandwidth > 0) {
        xMin = std::min(xMin, maxCompute / maxBandwidth / 100);
        xMax = std::max(xMax, maxCompute / maxBandwidth * 10);
    }
    if (xMax <= 0) {
        xMin = 0.01;
        xMax = 1000;
    }
    xMin = std::pow(10, std::floor(std::log10(xMin)));
    xMax = std::pow(10, std::ceil(std::log10(xMax)));
    for (const auto &c : m_data.ceilings) {
        yMax = std::max(yMax, c.kind == QLatin1String("compute") ? c.value : c.value * xMax);
        yMin = std::min(yMin, c.kind == QLatin1String("compute") ? c.value / 1000 : c.value * xMin);
    }
    yMin = std::pow(10, std::floor(std::log10(yMin)));
    yMax = std::pow(10, std::ceil(std::log10(yMax)));

    auto *x = new QLogValueAxis;
    x->setTitleText(tr("Arithmetic intensity (FLOP/byte)"));
    x->setLabelFormat(QStringLiteral("%g"));
    x->setRange(xMin, xMax);
    auto *y = new QLogValueAxis;
    y->setTitleText(tr("Performance (FLOP/s)"));
    y->setLabelFormat(QStringLiteral("%.0e"));
    y->setRange(yMin, yMax);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);

    auto attach = [&](QAbstractSeries *series) {
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    };
    for (const RooflineCeiling &c : m_data.ceilings) {
        auto *line = new QLineSeries;
        line->setName(c.label);
        if (c.kind == QLatin1String("compute")) {
            // From where the fastest memory meets it to the right edge.
            const double ridge = maxBandwidth > 0 ? c.value / maxBandwidth : xMin;
            line->append(std::max(ridge, xMin), c.value);
            line->append(xMax, c.value);
        } else {
            const double end = maxCompute > 0 ? std::min(maxCompute / c.value, xMax) : xMax;
            line->append(xMin, c.value * xMin);
            line->append(end, c.value * end);
        }
        QPen pen = line->pen();
        pen.setWidthF(2);
        // Spec roofs solid in the text colour, what calibrate measured on this card dashed in the
        // highlight colour: both from the palette, so they show on light and dark themes.
        pen.setColor(palette().color(QPalette::WindowText));
        if (c.origin == QLatin1String("measured")) {
            pen.setStyle(Qt::DashLine);
            pen.setColor(palette().color(QPalette::Highlight));
        }
        line->setPen(pen);
        attach(line);
    }
    QMap<QString, QScatterSeries *> byKind;
    for (const RooflinePoint &p : m_data.points) {
        QScatterSeries *&series = byKind[p.kind];
        if (!series) {
            series = new QScatterSeries;
            series->setName(p.kind);
            series->setMarkerSize(10);
            attach(series);
            connect(series, &QScatterSeries::clicked, this, [this](const QPointF &value) {
                if (const RooflinePoint *hit = pointNear(value)) {
                    selectKey(hit->key);
                    Q_EMIT pointSelected(hit->key);
                }
            });
            connect(series, &QScatterSeries::hovered, this, &RooflineChartView::showCallout);
        }
        series->append(p.intensity, p.flopsPerSecond);
    }
    m_selectedSeries = new QScatterSeries;
    m_selectedSeries->setName(tr("selected"));
    m_selectedSeries->setMarkerSize(16);
    m_selectedSeries->setColor(Qt::transparent);
    m_selectedSeries->setBorderColor(QColor(220, 30, 30));
    QPen pen(QColor(220, 30, 30));
    pen.setWidth(3);
    m_selectedSeries->setPen(pen);
    attach(m_selectedSeries);
    QStringList status{tr("%n point(s)", nullptr, int(m_data.points.size()))};
    status += m_data.notes;
    if (!m_rejected.isEmpty())
        status.append(tr("Left out (not > 0): %1").arg(m_rejected.join(QStringLiteral("; "))));
    m_status->setText(status.join(QLatin1Char('\n')));
    selectKey(m_selectedKey);
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
}

void RooflineChartView::showCallout(const QPointF &value, bool show)
{
    if (!show) {
        if (m_callout)
            m_callout->hide();
        return;
    }
    const RooflinePoint *p = pointNear(value);
    if (!p)
        return;
    if (!m_callout) {
        m_callout = new QGraphicsSimpleTextItem(m_view->chart());
        m_callout->setZValue(10);
    }
    m_callout->setBrush(palette().color(QPalette::Text));
    m_callout->setText(QStringLiteral("%1\n%2 FLOP/B, %3")
                           .arg(p->label)
                           .arg(p->intensity, 0, 'g', 3)
                           .arg(flopsText(p->flopsPerSecond)));
    m_callout->setPos(m_view->chart()->mapToPosition(value) + QPointF(10, -30));
    m_callout->show();
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
