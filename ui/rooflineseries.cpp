// SPDX-License-Identifier: Apache-2.0
#include "rooflineseries.h"

#include <QLineSeries>
#include <QMap>
#include <QPen>
#include <QScatterSeries>

#include <algorithm>
#include <iterator>
#include <utility>

namespace hotkernel::RooflineSeries {

namespace {

// One colour and one dash per ceiling, in order; none of them the point colours.
const QColor kCeilingColors[] = {QColor(200, 40, 60), QColor(150, 90, 210), QColor(20, 160, 170),
                                 QColor(190, 140, 0), QColor(220, 80, 170), QColor(110, 120, 135)};
const Qt::PenStyle kCeilingDashes[] = {Qt::SolidLine, Qt::DashLine,       Qt::DashDotLine,
                                       Qt::DotLine,   Qt::DashDotDotLine, Qt::SolidLine};

const QString kBaseline = QStringLiteral("baseline");
const QString kKernel = QStringLiteral("kernel");
const QString kCandidate = QStringLiteral("candidate");

QScatterSeries *styledSeries(const QString &kind)
{
    auto *series = new QScatterSeries;
    series->setName(kind);
    const QColor color = kindColor(kind);
    if (kind == kBaseline) {
        series->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        series->setMarkerSize(16);
        series->setColor(Qt::transparent);
        series->setPen(QPen(color, 3));
    } else if (kind == kKernel) {
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
    return series;
}

} // namespace

QColor kindColor(const QString &kind)
{
    // Mid-tone hues that read on white and on the dark theme's near-black alike.
    if (kind == kBaseline)
        return QColor(235, 125, 20);
    if (kind == kCandidate)
        return QColor(40, 165, 75);
    return QColor(45, 125, 210); // kernels
}

QLineSeries *ceiling(const QString &label, const QLineF &line, int index)
{
    auto *series = new QLineSeries;
    series->setName(label);
    series->append(line.p1());
    series->append(line.p2());
    const int n = int(std::size(kCeilingColors));
    QPen pen(kCeilingColors[index % n]);
    pen.setWidthF(2);
    pen.setStyle(kCeilingDashes[index % n]);
    series->setPen(pen);
    return series;
}

QList<QScatterSeries *> points(const RooflineData &data)
{
    // Baselines first and larger, hollow: a candidate on the same spot sits inside, not on top.
    QMap<QString, QScatterSeries *> byKind;
    for (const QString &kind : {kBaseline, kKernel, kCandidate}) {
        if (std::any_of(data.points.begin(), data.points.end(),
                        [&kind](const RooflinePoint &p) { return p.kind == kind; }))
            byKind.insert(kind, styledSeries(kind));
    }
    for (const RooflinePoint &p : data.points) {
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
    for (const QString &kind : {kBaseline, kKernel, kCandidate})
        if (byKind.contains(kind))
            ordered.append(byKind.value(kind));
    for (auto it = byKind.cbegin(); it != byKind.cend(); ++it)
        if (!ordered.contains(it.value()))
            ordered.append(it.value());
    return ordered;
}

QList<QLineSeries *> changes(const RooflineData &data, const QColor &color, const QString &name)
{
    // One kernel (or script) on both sides: a line from its baseline to its candidate point.
    QMap<QString, std::pair<const RooflinePoint *, const RooflinePoint *>> sides;
    for (const RooflinePoint &p : data.points) {
        if (p.kind == kBaseline)
            sides[p.key].first = &p;
        else if (p.kind == kCandidate)
            sides[p.key].second = &p;
    }
    QList<QLineSeries *> lines;
    for (auto it = sides.cbegin(); it != sides.cend(); ++it) {
        if (!it->first || !it->second)
            continue;
        auto *join = new QLineSeries;
        join->setName(name);
        join->append(it->first->intensity, it->first->flopsPerSecond);
        join->append(it->second->intensity, it->second->flopsPerSecond);
        QPen pen(color);
        pen.setWidthF(1.2);
        pen.setStyle(Qt::DashLine);
        join->setPen(pen);
        lines.append(join);
    }
    return lines;
}

QScatterSeries *selectionRing(const QString &name)
{
    auto *ring = new QScatterSeries;
    ring->setName(name);
    ring->setMarkerSize(22);
    ring->setColor(Qt::transparent);
    ring->setBorderColor(QColor(220, 30, 30));
    QPen pen(QColor(220, 30, 30));
    pen.setWidth(3);
    ring->setPen(pen);
    return ring;
}

} // namespace hotkernel::RooflineSeries
