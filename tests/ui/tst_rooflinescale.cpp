// SPDX-License-Identifier: Apache-2.0
// The roofline's pure geometry (ui/rooflinescale.h): each ceiling's line stops or starts where it
// meets the highest roof of the other kind, and values a log-log plot cannot hold are left out
// and named.
#include "rooflinescale.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace hotkernel;

namespace {

RooflineCeiling ceiling(const char *label, const char *kind, double value)
{
    return RooflineCeiling{QString::fromLatin1(label), QString::fromLatin1(kind), QStringLiteral("spec"),
                           value};
}

RooflinePoint point(const char *label, double intensity, double flops)
{
    const QString name = QString::fromLatin1(label);
    return RooflinePoint{name, QStringLiteral("kernel"), intensity, flops, name};
}

// H200-like roofs: 989 TFLOP/s bf16 and 4.8 TB/s HBM meet at 206 FLOP/B.
RooflineData twoRoofs()
{
    RooflineData data;
    data.ceilings = {ceiling("bf16", "compute", 989e12), ceiling("HBM", "bandwidth", 4.8e12),
                     ceiling("fp32", "compute", 67e12), ceiling("L2", "bandwidth", 1.2e12)};
    return data;
}

} // namespace

class TestRooflineScale : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void highestRoofsMeetAtTheRidge()
    {
        const RooflineData data = twoRoofs();
        const RooflineScale::Roofs roofs = RooflineScale::roofsOf(data);
        QCOMPARE(roofs.compute, 989e12);
        QCOMPARE(roofs.bandwidth, 4.8e12);
        const RooflineScale::Ranges ranges{0.01, 1000, 1e9, 1e16};
        const QLineF compute = RooflineScale::ceilingLine(data.ceilings[0], roofs, ranges);
        const QLineF bandwidth = RooflineScale::ceilingLine(data.ceilings[1], roofs, ranges);
        const double ridge = 989e12 / 4.8e12;
        QVERIFY(qFuzzyCompare(compute.p1().x(), ridge));
        QCOMPARE(compute.p2(), QPointF(1000, 989e12));
        QCOMPARE(bandwidth.p1(), QPointF(0.01, 4.8e12 * 0.01));
        // The bandwidth roof ends on the compute roof, not past it.
        QVERIFY(qFuzzyCompare(bandwidth.p2().x(), ridge));
        QVERIFY(qFuzzyCompare(bandwidth.p2().y(), 989e12));
    }

    void lowerRoofsStopAtTheHighestOfTheOtherKind()
    {
        const RooflineData data = twoRoofs();
        const RooflineScale::Roofs roofs = RooflineScale::roofsOf(data);
        const RooflineScale::Ranges ranges{0.01, 1000, 1e9, 1e16};
        // fp32 starts where it crosses HBM (67e12 / 4.8e12 = 14 FLOP/B), not at the left edge.
        const QLineF fp32 = RooflineScale::ceilingLine(data.ceilings[2], roofs, ranges);
        QVERIFY(qFuzzyCompare(fp32.p1().x(), 67e12 / 4.8e12));
        // L2's slower line reaches bf16 further right (824 FLOP/B), still inside the plot.
        const QLineF l2 = RooflineScale::ceilingLine(data.ceilings[3], roofs, ranges);
        QVERIFY(qFuzzyCompare(l2.p2().x(), 989e12 / 1.2e12));
        // Past the right edge, the line stops at the edge.
        const QLineF clipped =
            RooflineScale::ceilingLine(data.ceilings[3], roofs, RooflineScale::Ranges{0.01, 100, 1e9, 1e16});
        QCOMPARE(clipped.p2().x(), 100.0);
        QVERIFY(qFuzzyCompare(clipped.p2().y(), 1.2e14));
    }

    void aLoneRoofSpansThePlot()
    {
        RooflineData data;
        data.ceilings = {ceiling("HBM", "bandwidth", 4.8e12)};
        const RooflineScale::Ranges ranges{0.05, 500, 1e9, 1e16};
        const QLineF line =
            RooflineScale::ceilingLine(data.ceilings[0], RooflineScale::roofsOf(data), ranges);
        QCOMPARE(line.p1().x(), 0.05);
        QCOMPARE(line.p2().x(), 500.0);
    }

    void plottableLeavesOutWhatALogPlotCannotHold()
    {
        RooflineData data = twoRoofs();
        data.ceilings.push_back(ceiling("broken", "compute", 0));
        data.points = {point("good", 2, 1e12), point("zero", 0, 1e12),
                       point("nan", std::numeric_limits<double>::quiet_NaN(), 1e12),
                       point("negative", 2, -1)};
        QStringList rejected;
        const RooflineData kept = RooflineScale::plottable(data, &rejected);
        QCOMPARE(kept.ceilings.size(), size_t(4));
        QCOMPARE(kept.points.size(), size_t(1));
        QCOMPARE(kept.points.front().label, QStringLiteral("good"));
        QCOMPARE(rejected.size(), 4);
        QVERIFY(rejected.first().startsWith(QLatin1String("ceiling broken")));
        QVERIFY(rejected.last().startsWith(QLatin1String("point negative")));
        // No list to fill: the same values kept.
        QCOMPARE(RooflineScale::plottable(data, nullptr).points.size(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestRooflineScale)
#include "tst_rooflinescale.moc"
