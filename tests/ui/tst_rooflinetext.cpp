// SPDX-License-Identifier: Apache-2.0
// What the roofline says about a point (ui/rooflinetext.h): the roof above it changes from the
// bandwidth roof to the compute roof at the ridge, and its share of that roof is in the text.
#include "rooflinetext.h"

#include <QTest>

using namespace hotkernel;

namespace {

RooflineData h200()
{
    RooflineData data;
    data.ceilings = {
        RooflineCeiling{QStringLiteral("bf16 989 TFLOP/s"), QStringLiteral("compute"), QStringLiteral("spec"),
                        989e12},
        RooflineCeiling{QStringLiteral("HBM 4.8 TB/s"), QStringLiteral("bandwidth"), QStringLiteral("spec"),
                        4.8e12},
        RooflineCeiling{QStringLiteral("L2"), QStringLiteral("bandwidth"), QStringLiteral("spec"), 1e12}};
    return data;
}

RooflinePoint point(const QString &label, double intensity, double flops)
{
    return RooflinePoint{label, QStringLiteral("candidate"), intensity, flops, label};
}

} // namespace

class TestRooflineText : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roofAboveFollowsTheRidge()
    {
        const RooflineData data = h200();
        // Below the ridge (206 FLOP/B) the highest bandwidth roof at the point's intensity.
        const auto low = RooflineText::roofAbove(data, point(QStringLiteral("a"), 10, 1e13));
        QCOMPARE(low.label, QStringLiteral("HBM 4.8 TB/s"));
        QCOMPARE(low.value, 4.8e13);
        const auto high = RooflineText::roofAbove(data, point(QStringLiteral("b"), 1000, 5e14));
        QCOMPARE(high.label, QStringLiteral("bf16 989 TFLOP/s"));
        QCOMPARE(high.value, 989e12);
        QVERIFY(RooflineText::roofAbove(RooflineData{}, point(QStringLiteral("c"), 1, 1)).label.isEmpty());
    }

    void flopsTextPicksTheUnit()
    {
        QCOMPARE(RooflineText::flopsText(1.06e12), QStringLiteral("1.06 TFLOP/s"));
        QCOMPARE(RooflineText::flopsText(950e9), QStringLiteral("950 GFLOP/s"));
        QCOMPARE(RooflineText::flopsText(12), QStringLiteral("12 FLOP/s"));
    }

    void textsGiveTheShareOfTheRoof()
    {
        const RooflineData data = h200();
        const RooflinePoint p = point(QStringLiteral("<lambda>"), 10, 2.4e13); // half of HBM's 48 TFLOP/s
        const QString callout = RooflineText::describe(data, p);
        QCOMPARE(callout.count(QLatin1Char('\n')), 4);
        QVERIFY2(callout.contains(QLatin1String("50.0 % of the roof here: HBM 4.8 TB/s")),
                 qPrintable(callout));
        QVERIFY(callout.contains(QLatin1String("2400.0 GB/s")));
        const QString two = RooflineText::describeShort(data, p);
        QCOMPARE(two.count(QLatin1Char('\n')), 1);
        QVERIFY2(two.endsWith(QLatin1String("50 % of HBM 4.8 TB/s")), qPrintable(two));
        const QString line = RooflineText::selected(data, p);
        QVERIFY2(line.startsWith(QLatin1String("<b>&lt;lambda&gt;</b> (candidate)")), qPrintable(line));
        QVERIFY(line.contains(QLatin1String("<b>50% of the HBM 4.8 TB/s roof</b>")));
    }
};

QTEST_GUILESS_MAIN(TestRooflineText)
#include "tst_rooflinetext.moc"
