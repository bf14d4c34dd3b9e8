// SPDX-License-Identifier: Apache-2.0
// The log-log roofline of one card: a two-point line per ceiling, scatter points per kind, the
// selected point synced with the kernel table, a hover callout, PNG/SVG export. GUI thread.
// Qt Charts stays inside this view (the module is deprecated upstream).
#pragma once

#include "inspect/rooflinemodel.h"
#include "rooflinescale.h"
#include "rooflinetext.h"

#include <QLineF>
#include <QList>
#include <QPointer>
#include <QPolygonF>
#include <QWidget>

class QAbstractSeries;
class QChart;
class QChartView;
class QGraphicsRectItem;
class QGraphicsSimpleTextItem;
class QPolygonF;
class QLabel;
class QLogValueAxis;
class QScatterSeries;

namespace hotkernel {

class RooflineChartView : public QWidget
{
    Q_OBJECT
public:
    explicit RooflineChartView(QWidget *parent = nullptr);

    // Drops (and reports in rejected()) every value <= 0 or not finite: Qt Charts blanks a whole
    // log-axis series when one point is <= 0.
    void setData(const RooflineData &data);
    const RooflineData &data() const { return m_data; }
    QStringList rejected() const { return m_rejected; }
    // What the status line under the chart says (point count, kernels without a point, rejects).
    QString statusText() const;
    // The key of the selected point, or empty.
    QString selectedKey() const { return m_selectedKey; }
    void selectKey(const QString &key);

    bool exportPng(const QString &path) const;
    bool exportSvg(const QString &path) const;

    QChart *chart() const;
    static RooflineData validated(const RooflineData &data, QStringList *rejected);

    // The axes' ranges (rooflinescale.h).
    using Ranges = RooflineScale::Ranges;
    static Ranges fittedRanges(const RooflineData &data) { return RooflineScale::fitted(data); }
    Ranges ranges() const { return m_ranges; }
    // The text a hover over point shows: FLOP/B, GB/s, FLOP/s and the share of the roof above it.
    QString describe(const RooflinePoint &point) const;
    // The roof a point sits under: the lower of the highest compute roof and the highest bandwidth
    // roof at its intensity, and that ceiling's label (empty label: no roof).
    using RoofAbove = RooflineText::RoofAbove;
    RoofAbove roofAbove(const RooflinePoint &point) const;
    // "_rmsnorm_kernel (candidate): 0.25 FLOP/B, 1.06 TFLOP/s, 4,231 GB/s: 88% of copy 4.17 TB/s
    // (measured)": the selected point's numbers, always shown above the plot (no hover needed).
    QString selectedText() const;
    QLabel *selectedLabel() const { return m_selectedInfo; }
    // The hover callout's box in scene coordinates (tests: clear of the ceiling labels).
    QRectF calloutShape() const;
    // Shows the callout of a point as a hover does (tests, and the selected point's ring).
    void showCalloutFor(const RooflinePoint &point);
    // Fixed per kind, the same in both themes and for every profile (kernel, baseline, candidate).
    static QColor kindColor(const QString &kind);
    // Each ceiling label shown now, as the polygon it covers in the chart's scene (tests: none
    // overlaps another; a label that finds no free place on its line is hidden, not stacked).
    QList<QPolygonF> ceilingLabelShapes() const;
    // Each ceiling's line in scene coordinates, in the order of ceilingLabelShapes() (tests).
    QList<QLineF> ceilingLines() const;

Q_SIGNALS:
    void pointSelected(const QString &key);

public:
    // Below this height the chart view drops its title and legend (the status line says both).
    static constexpr int kCompactBelow = 260;
    bool isCompact() const { return m_compact; }
    // The ceiling labels with no free place on this plot (named in the status tooltip).
    QStringList droppedLabels() const { return m_droppedLabels; }

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    // Rebuilt from m_data in steps: chart cleared, axes, ceilings, points, selection ring.
    void rebuild();
    void clearChart();
    void addAxes();
    void addCeilings();
    void addPoints();
    void addSelectionRing();
    // Adds series to the chart on both axes; inLegend false: no legend entry (lines with labels).
    void attach(QAbstractSeries *series, bool inLegend = true);
    void showOutlineInLegend(QScatterSeries *hollow);
    void placeLabels();
    void fitTicks();
    void updateCompact();
    void updateStatus();
    const RooflinePoint *selectedPoint() const;
    void showCallout(const QPointF &value, bool show);
    void updateSelectedInfo();
    const RooflinePoint *pointNear(const QPointF &value) const;

    RooflineData m_data;
    QStringList m_rejected;
    QString m_selectedKey;
    QChartView *m_view;
    QLabel *m_status;
    QLabel *m_selectedInfo;
    QGraphicsRectItem *m_calloutBox = nullptr;
    QScatterSeries *m_selectedSeries = nullptr;
    QGraphicsSimpleTextItem *m_callout = nullptr;
    QList<QGraphicsSimpleTextItem *> m_coveredByCallout; // labels hidden while the callout shows
    QPointer<QLogValueAxis> m_yAxis;
    QString m_title;
    QStringList m_droppedLabels;
    bool m_compact = false;
    Ranges m_ranges;
    // Each ceiling's label sits on its line; placed again when the plot area moves.
    struct LineLabel
    {
        QGraphicsSimpleTextItem *item = nullptr;
        QPointF from; // the line's ends, in chart values
        QPointF to;
        double at = 0.5;           // where along the line the label would rather be (0 from, 1 to)
        bool rightAligned = false; // the label ends at its place (compute roofs), else starts there
        double value = 0;          // the ceiling's, to rank its label (the highest roofs first)
    };
    std::vector<LineLabel> m_lineLabels;
};

} // namespace hotkernel
