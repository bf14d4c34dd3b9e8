// SPDX-License-Identifier: Apache-2.0
#include "rooflinelabellayout.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hotkernel {

namespace {

// A label on its line: straight in log-log, so straight in pixels, and rotated to its slope.
struct Frame
{
    QPointF a, b;
    double cs = 1, sn = 0;
    QSizeF size;

    QPointF rotated(double u, double v) const { return QPointF(u * cs - v * sn, u * sn + v * cs); }
    QPolygonF shapeAt(const QPointF &origin, double pad) const
    {
        return QPolygonF({origin + rotated(-pad, -pad), origin + rotated(size.width() + pad, -pad),
                          origin + rotated(size.width() + pad, size.height() + pad),
                          origin + rotated(-pad, size.height() + pad)});
    }
};

bool crossesLine(const QPolygonF &shape, const QLineF &line)
{
    const int samples = std::max(2, int(line.length() / 3));
    for (int i = 0; i <= samples; ++i) {
        if (shape.containsPoint(line.pointAt(double(i) / samples), Qt::OddEvenFill))
            return true;
    }
    return false;
}

} // namespace

std::vector<RooflineLabelLayout::Place> RooflineLabelLayout::placeLabels(const std::vector<Request> &requests,
                                                                         const QRectF &plot,
                                                                         const std::vector<QPointF> &points)
{
    std::vector<Place> places(requests.size());
    std::vector<QPolygonF> taken;
    for (size_t i = 0; i < requests.size(); ++i) {
        const Request &r = requests[i];
        Frame f;
        f.a = r.line.p1();
        f.b = r.line.p2();
        f.size = r.size;
        const double angle =
            std::abs(f.a.y() - f.b.y()) < 0.5 ? 0.0 : std::atan2(f.b.y() - f.a.y(), f.b.x() - f.a.x());
        f.cs = std::cos(angle);
        f.sn = std::sin(angle);
        // The preferred place first, then ever further along the line.
        const double at = std::clamp(r.at, 0.0, 1.0);
        std::vector<double> along{at};
        for (int step = 1; step <= 25; ++step) {
            for (double t : {at - 0.04 * step, at + 0.04 * step}) {
                if (t >= 0 && t <= 1)
                    along.push_back(t);
            }
        }
        const auto overLines = [&](const QPolygonF &shape) {
            for (size_t j = 0; j < requests.size(); ++j) {
                if (j != i && crossesLine(shape, requests[j].line))
                    return true;
            }
            return false;
        };
        // Another roof running between a label stood off its line and that line, along most of the
        // label (a line that only clips a corner of the gap, such as a roof starting there, does not
        // make the label read as its own).
        const auto runsBetween = [&](const QPolygonF &gap) {
            for (size_t j = 0; j < requests.size(); ++j) {
                if (j == i)
                    continue;
                const QLineF &line = requests[j].line;
                const int samples = std::max(2, int(line.length() / 2));
                double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
                for (int k = 0; k <= samples; ++k) {
                    const QPointF p = line.pointAt(double(k) / samples);
                    if (!gap.containsPoint(p, Qt::OddEvenFill))
                        continue;
                    const double u = (p.x() - f.a.x()) * f.cs + (p.y() - f.a.y()) * f.sn; // along the label
                    lo = std::min(lo, u);
                    hi = std::max(hi, u);
                }
                if (hi - lo > 0.5 * r.size.width())
                    return true;
            }
            return false;
        };
        const auto overPoints = [&](const QPointF &origin) {
            const QPolygonF padded = f.shapeAt(origin, kPointRadius);
            return std::any_of(points.cbegin(), points.cend(), [&padded](const QPointF &p) {
                return padded.containsPoint(p, Qt::OddEvenFill);
            });
        };
        // Just above or below the line; where two roofs run a few pixels apart (DRAM and the
        // measured copy rate) neither side of the lower one is free of the upper one, so a label may
        // stand one label's height further off before it is allowed across another roof's line. A
        // label never covers another one nor a kernel's marker; only the selected kernel's roof may,
        // as a last resort, cover lines and markers.
        const double h = r.size.height();
        const std::vector<double> near{-(h + 1), 1.0};
        const std::vector<double> further{-(2 * h + 4), h + 4};
        struct Pass
        {
            const std::vector<double> *offsets;
            bool avoidLines;
            bool avoidPoints;
            bool onOwnLine; // the text mostly over its own line, not past its end (naming another)
        };
        std::vector<Pass> passes{
            {&near, true, true, true}, {&further, true, true, true}, {&near, false, true, true}};
        if (r.keep) {
            passes.push_back({&further, false, true, true});
            passes.push_back({&near, false, false, false});
        }
        const double length = QLineF(f.a, f.b).length();
        for (const Pass &pass : passes) {
            for (double t : along) {
                // Most of the text over its own line: a compute roof that starts at a ridge just
                // inside a small plot is shorter than its label.
                if (pass.onOwnLine && (r.rightAligned ? t * length : (1 - t) * length) < 0.6 * r.size.width())
                    continue;
                const QPointF anchor = f.a + t * (f.b - f.a);
                for (double offset : *pass.offsets) {
                    const double x0 = r.rightAligned ? -r.size.width() : 0.0;
                    const QPointF origin = anchor + f.rotated(x0, offset);
                    const QPolygonF shape = f.shapeAt(origin, 2);
                    const bool inside = std::all_of(shape.cbegin(), shape.cend(),
                                                    [&plot](const QPointF &p) { return plot.contains(p); });
                    if (!inside || std::any_of(taken.cbegin(), taken.cend(),
                                               [&shape](const QPolygonF &o) { return o.intersects(shape); }))
                        continue;
                    // Strict: a label stood off its line has nothing between it and its line
                    // either, else it reads as the next roof's.
                    const double top = std::min(offset, 0.0), bottom = std::max(offset + h, 0.0);
                    const QPolygonF span(
                        {anchor + f.rotated(x0, top), anchor + f.rotated(x0 + r.size.width(), top),
                         anchor + f.rotated(x0 + r.size.width(), bottom), anchor + f.rotated(x0, bottom)});
                    const bool stoodOff = offset > 1 || offset < -(h + 1);
                    if ((pass.avoidLines &&
                         (overLines(f.shapeAt(origin, 0)) || (stoodOff && runsBetween(span)))) ||
                        (pass.avoidPoints && overPoints(origin)))
                        continue;
                    places[i] = {true, origin, angle * 180 / M_PI, f.shapeAt(origin, 0)};
                    taken.push_back(shape);
                    break;
                }
                if (places[i].visible)
                    break;
            }
            if (places[i].visible)
                break;
        }
    }
    return places;
}

QRectF RooflineLabelLayout::placeCallout(const QSizeF &size, const QPointF &at, const QRectF &plot,
                                         const QList<QPolygonF> &avoid, bool *clear)
{
    if (clear)
        *clear = false;
    if (size.width() > plot.width() || size.height() > plot.height())
        return QRectF(plot.topLeft(), size);
    // Every place on a grid over the plot; the nearest to the point that leaves the point and its
    // ring visible wins, first among those off every label.
    const double step = 4;
    QRectF best, bestClear;
    double bestDistance = std::numeric_limits<double>::max(), bestClearDistance = bestDistance;
    for (double y = plot.top(); y + size.height() <= plot.bottom(); y += step) {
        for (double x = plot.left(); x + size.width() <= plot.right(); x += step) {
            const QRectF box(QPointF(x, y), size);
            const double ring = kPointRadius + 2; // the ring's pen, outside its radius
            if (box.adjusted(-ring, -ring, ring, ring).contains(at))
                continue;
            const double dx = std::max({box.left() - at.x(), 0.0, at.x() - box.right()});
            const double dy = std::max({box.top() - at.y(), 0.0, at.y() - box.bottom()});
            const double distance = std::hypot(dx, dy);
            if (distance < bestDistance) {
                bestDistance = distance;
                best = box;
            }
            if (distance < bestClearDistance) {
                const QPolygonF shape(box);
                if (std::none_of(avoid.cbegin(), avoid.cend(),
                                 [&shape](const QPolygonF &a) { return a.intersects(shape); })) {
                    bestClearDistance = distance;
                    bestClear = box;
                }
            }
        }
    }
    if (!bestClear.isNull()) {
        if (clear)
            *clear = true;
        return bestClear;
    }
    return best.isNull() ? QRectF(plot.topLeft(), size) : best;
}

int RooflineLabelLayout::decadesPerTick(double decades, double pixels, double labelHeight)
{
    // Qt Charts gives each of a vertical axis' n labels pixels / n less its padding (2 px a side).
    const int most = std::max(1, int(decades / 2));
    for (int k = 1; k < most; ++k) {
        const double labels = std::floor(decades / k) + 1;
        if (pixels / labels - 4 >= labelHeight * 1.15)
            return k;
    }
    return most;
}

} // namespace hotkernel
