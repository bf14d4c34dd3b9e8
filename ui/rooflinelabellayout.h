// SPDX-License-Identifier: Apache-2.0
// Where the roofline's texts go in a plot of a given size, in chart pixels: each ceiling's label on
// its line and clear of the other labels (the lower-priority one is dropped when no place is free),
// the hover callout inside the plot and clear of the labels, and how far apart the log axis' ticks
// stand so that their labels are never elided. Pure geometry, no Qt Charts; GUI thread.
#pragma once

#include <QLineF>
#include <QList>
#include <QPolygonF>
#include <QRectF>
#include <QSizeF>

#include <vector>

namespace hotkernel {

class RooflineLabelLayout
{
public:
    struct Request
    {
        QLineF line;               // the ceiling's line across the plot
        QSizeF size;               // the label's text
        double at = 0.5;           // where along the line it would rather be (0 p1, 1 p2)
        bool rightAligned = false; // the label ends at its place (compute roofs), else starts there
        // The roof the selected kernel sits under: it may cross other lines and points when nothing
        // else is free, never another label.
        bool keep = false;
    };
    struct Place
    {
        bool visible = false;
        QPointF origin;   // the text's top left before its rotation
        double angle = 0; // degrees, the line's slope
        QPolygonF shape;  // the text as placed
    };
    // Requests in priority order: each is placed on the plot left by those before it. points: the
    // kernels' markers, kept clear of labels (the selection ring reaches kPointRadius out).
    static std::vector<Place> placeLabels(const std::vector<Request> &requests, const QRectF &plot,
                                          const std::vector<QPointF> &points);

    // The callout box of size next to the point at: inside the plot, not over the point, nearest to
    // it, off every shape in avoid. When no such place exists, *clear is false and the box is the
    // nearest place inside the plot (the caller hides what it covers); a box larger than the plot
    // is laid on the plot's top left.
    static QRectF placeCallout(const QSizeF &size, const QPointF &at, const QRectF &plot,
                               const QList<QPolygonF> &avoid, bool *clear = nullptr);

    // Decades between two ticks of a log axis spanning decades over pixels, so that each label of
    // labelHeight gets its own room (Qt Charts elides a label to "..." when it does not).
    static int decadesPerTick(double decades, double pixels, double labelHeight);

    static constexpr double kPointRadius = 12;
};

} // namespace hotkernel
