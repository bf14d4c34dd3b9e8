// SPDX-License-Identifier: Apache-2.0
#include "rooflinetext.h"

#include <QCoreApplication>

namespace hotkernel::RooflineText {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("hotkernel::RooflineChartView", text);
}

} // namespace

RoofAbove roofAbove(const RooflineData &data, const RooflinePoint &p)
{
    const RooflineCeiling *compute = nullptr;
    const RooflineCeiling *bandwidth = nullptr;
    for (const RooflineCeiling &c : data.ceilings) {
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

QString flopsText(double v)
{
    if (v >= 1e12)
        return QStringLiteral("%1 TFLOP/s").arg(v / 1e12, 0, 'g', 4);
    if (v >= 1e9)
        return QStringLiteral("%1 GFLOP/s").arg(v / 1e9, 0, 'g', 4);
    return QStringLiteral("%1 FLOP/s").arg(v, 0, 'g', 4);
}

QString describe(const RooflineData &data, const RooflinePoint &p)
{
    const RoofAbove roof = roofAbove(data, p);
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

QString describeShort(const RooflineData &data, const RooflinePoint &p)
{
    const RoofAbove roof = roofAbove(data, p);
    QString numbers =
        QStringLiteral("%1 FLOP/B, %2").arg(p.intensity, 0, 'g', 3).arg(flopsText(p.flopsPerSecond));
    if (roof.value > 0)
        numbers += tr(": %1 % of %2").arg(100 * p.flopsPerSecond / roof.value, 0, 'f', 0).arg(roof.label);
    return QStringLiteral("%1 (%2)\n%3").arg(p.label, p.kind, numbers);
}

QString selected(const RooflineData &data, const RooflinePoint &p)
{
    const RoofAbove roof = roofAbove(data, p);
    QString text = tr("<b>%1</b> (%2): %3 FLOP/B, %4, %5 GB/s")
                       .arg(p.label.toHtmlEscaped(), p.kind)
                       .arg(p.intensity, 0, 'g', 3)
                       .arg(flopsText(p.flopsPerSecond))
                       .arg(p.flopsPerSecond / p.intensity / 1e9, 0, 'f', 0);
    if (roof.value > 0)
        text += tr(": <b>%1% of the %2 roof</b>")
                    .arg(100 * p.flopsPerSecond / roof.value, 0, 'f', 0)
                    .arg(roof.label.toHtmlEscaped());
    return text;
}

} // namespace hotkernel::RooflineText
