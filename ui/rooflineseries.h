// SPDX-License-Identifier: Apache-2.0
// The roofline chart's series, made and styled from core data: a two-point line per ceiling (one
// colour and dash each, none of them a point colour), a scatter series per point kind (baselines
// hollow and larger, so a candidate on the same spot sits inside), the dashed change line from a
// kernel's baseline to its candidate, and the selection ring. Qt Charts stays in the chart view's
// files. GUI thread.
#pragma once

#include "inspect/rooflinemodel.h"

#include <QColor>
#include <QLineF>
#include <QList>

class QLineSeries;
class QScatterSeries;

namespace hotkernel::RooflineSeries {

// Fixed per kind, the same in both themes (kernel, baseline, candidate).
QColor kindColor(const QString &kind);
// The line of the index-th ceiling, named by its label, from line.p1() to line.p2() (chart values).
QLineSeries *ceiling(const QString &label, const QLineF &line, int index);
// One series per kind in data's points: baseline, kernel, candidate, then any other kind.
QList<QScatterSeries *> points(const RooflineData &data);
// A dashed line in color, named name, from each key's baseline point to its candidate point.
QList<QLineSeries *> changes(const RooflineData &data, const QColor &color, const QString &name);
// The empty ring that marks the selected point.
QScatterSeries *selectionRing(const QString &name);

} // namespace hotkernel::RooflineSeries
