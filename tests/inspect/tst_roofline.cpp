// SPDX-License-Identifier: Apache-2.0
// Roofline arithmetic: ridge = peak / bandwidth, the memory/compute verdict, attainable times
// from spec and measured ceilings, achieved figures, and the messages for bad input.
#include "base/usererror.h"
#include "inspect/cardtable.h"
#include "inspect/roofline.h"
#include "inspect/rooflineresult.h"

#include <QTest>

using namespace hotkernel;

namespace {

RooflineQuery query(const char *card, const char *dtype, double flops, double bytes)
{
    RooflineQuery q;
    q.card = *CardTable::builtin().find(QString::fromLatin1(card));
    q.dtype = QString::fromLatin1(dtype);
    q.flops = flops;
    q.bytes = bytes;
    return q;
}

MeasuredCeilings h200Measured()
{
    // The H200 figures in the reference spec (section 4): copy 4140 GB/s, bf16 GEMM 804 TFLOP/s.
    MeasuredCeilings m;
    m.bandwidthBytesPerSecond = 4140e9;
    m.peakFlopsPerSecond[QStringLiteral("bf16")] = 804e12;
    m.origin = QStringLiteral("test");
    return m;
}

QString errorOf(const RooflineQuery &q)
{
    try {
        Roofline::estimate(q);
    } catch (const UserError &e) {
        return e.message();
    }
    return {};
}

} // namespace

class TestRoofline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void ridgeIsPeakOverBandwidth();
    void boundVerdict_data();
    void boundVerdict();
    void attainableTimes();
    void measuredCeilings();
    void measuredWithoutPeakForDtypeUsesSpecPeak();
    void achievedFigures();
    void chartData();
    void badInputSaysWhatToPass();
    void ridgeOnlyGivesTheRoofsAlone();
    void resultReadsBackWhatItWrote();
};

void TestRoofline::ridgeIsPeakOverBandwidth()
{
    for (const CardSpec &card : CardTable::builtin().cards()) {
        RooflineQuery q;
        q.card = card;
        q.dtype = QStringLiteral("bf16");
        q.flops = 1e9;
        q.bytes = 1e6;
        const RooflineEstimate e = Roofline::estimate(q);
        QCOMPARE(e.spec.ridge, *card.peakFlopsPerSecond(q.dtype) / *card.bandwidthBytesPerSecond());
    }
    // H200 bf16: 989.5e12 / 4.8e12 = 206.1 FLOP/byte.
    const RooflineEstimate e = Roofline::estimate(query("h200-sxm", "bf16", 1, 1));
    QVERIFY(qAbs(e.spec.ridge - 206.146) < 0.01);
}

void TestRoofline::boundVerdict_data()
{
    QTest::addColumn<double>("flops");
    QTest::addColumn<double>("bytes");
    QTest::addColumn<QString>("bound");
    const double n = 4096.0 * 8192.0;
    // rmsnorm 4096x8192 bf16: ~4 FLOP per element, read + write 2 bytes each: far below the ridge.
    QTest::newRow("rmsnorm") << 4 * n << 4 * n << QStringLiteral("memory");
    QTest::newRow("copy (0 flops)") << 0.0 << 2 * n << QStringLiteral("memory");
    // 8192^3 bf16 GEMM: 2*8192^3 FLOP over 3 * 8192^2 * 2 bytes = 2731 FLOP/byte.
    QTest::newRow("gemm 8192") << 2.0 * 8192 * 8192 * 8192 << 3.0 * 8192 * 8192 * 2
                               << QStringLiteral("compute");
    // Exactly at the ridge (989.5e12 / 4.8e12 FLOP per byte): compute.
    QTest::newRow("at ridge") << 989.5e12 << 4.8e12 << QStringLiteral("compute");
    QTest::newRow("just below ridge") << 989.4e12 << 4.8e12 << QStringLiteral("memory");
}

void TestRoofline::boundVerdict()
{
    QFETCH(double, flops);
    QFETCH(double, bytes);
    QFETCH(QString, bound);
    QCOMPARE(Roofline::estimate(query("h200-sxm", "bf16", flops, bytes)).spec.bound, bound);
}

void TestRoofline::attainableTimes()
{
    // 4096x8192 bf16 rmsnorm moves 2 * 64 MiB: 134217728 bytes / 4.8e12 B/s = 27.96 us.
    const double bytes = 2.0 * 4096 * 8192 * 2;
    const RooflineEstimate e = Roofline::estimate(query("h200-sxm", "bf16", 4.0 * 4096 * 8192, bytes));
    QCOMPARE(e.spec.memoryMs, bytes / 4.8e12 * 1e3);
    QCOMPARE(e.spec.attainableMs, e.spec.memoryMs);
    QVERIFY(qAbs(e.spec.attainableMs - 0.027962) < 1e-6);
    // A GEMM's floor is its compute time.
    const double flops = 2.0 * 8192 * 8192 * 8192;
    const RooflineEstimate g = Roofline::estimate(query("h200-sxm", "bf16", flops, 3.0 * 8192 * 8192 * 2));
    QCOMPARE(g.spec.attainableMs, flops / 989.5e12 * 1e3);
    QVERIFY(g.spec.computeMs > g.spec.memoryMs);
}

void TestRoofline::measuredCeilings()
{
    const double bytes = 2.0 * 4096 * 8192 * 2;
    RooflineQuery q = query("h200-sxm", "bf16", 4.0 * 4096 * 8192, bytes);
    QVERIFY(!Roofline::estimate(q).measured);
    q.measured = h200Measured();
    const RooflineEstimate e = Roofline::estimate(q);
    QVERIFY(e.measured);
    QVERIFY(!e.measured->peakFromSpec);
    QCOMPARE(e.measured->bandwidthBytesPerSecond, 4140e9);
    QCOMPARE(e.measured->ridge, 804e12 / 4140e9);
    QCOMPARE(e.measured->attainableMs, bytes / 4140e9 * 1e3); // the realistic floor: 32.4 us
    QVERIFY(e.measured->attainableMs > e.spec.attainableMs);
}

void TestRoofline::measuredWithoutPeakForDtypeUsesSpecPeak()
{
    RooflineQuery q = query("h200-sxm", "fp8", 1e12, 1e9);
    q.measured = h200Measured();
    const RooflineEstimate e = Roofline::estimate(q);
    QVERIFY(e.measured->peakFromSpec);
    QCOMPARE(e.measured->peakFlopsPerSecond, 1979e12);
    QCOMPARE(e.measured->bandwidthBytesPerSecond, 4140e9);
}

void TestRoofline::achievedFigures()
{
    // The first Triton rmsnorm of the reference spec: 32.7 us, at 99% of copy bandwidth.
    const double bytes = 2.0 * 4096 * 8192 * 2;
    RooflineQuery q = query("h200-sxm", "bf16", 4.0 * 4096 * 8192, bytes);
    q.measured = h200Measured();
    q.measuredMs = 0.0327;
    const RooflineEstimate e = Roofline::estimate(q);
    QCOMPARE(*e.achievedBytesPerSecond, bytes / 0.0327e-3);
    QCOMPARE(*e.achievedFlopsPerSecond, q.flops / 0.0327e-3);
    QVERIFY(qAbs(*e.measuredFloorFraction - 0.9914) < 0.001);
    QVERIFY(*e.specFloorFraction < *e.measuredFloorFraction);
    const Json j = RooflineResult{q, e, {}, {}}.toJson();
    QCOMPARE(j["achieved"]["ms"].get<double>(), 0.0327);
    QCOMPARE(j["spec"]["bound"].get<std::string>(), std::string("memory"));
    QVERIFY(Roofline::toText(q, e).contains(QLatin1String("of the measured floor")));
}

void TestRoofline::chartData()
{
    RooflineQuery q = query("h200-sxm", "bf16", 1e9, 1e8);
    q.measured = h200Measured();
    q.label = QStringLiteral("rmsnorm");
    RooflineData d = Roofline::chartData(q, Roofline::estimate(q));
    QCOMPARE(d.ceilings.size(), size_t(4)); // spec and measured, bandwidth and compute
    QVERIFY(d.points.empty());              // no time, no point
    for (const RooflineCeiling &c : d.ceilings)
        QVERIFY(c.value > 0);
    q.measuredMs = 0.05;
    d = Roofline::chartData(q, Roofline::estimate(q));
    QCOMPARE(d.points.size(), size_t(1));
    QCOMPARE(d.points[0].intensity, 10.0);
    QCOMPARE(d.points[0].label, QStringLiteral("rmsnorm"));
    // Zero flops cannot sit on a log axis: no point rather than a broken series.
    q.flops = 0;
    d = Roofline::chartData(q, Roofline::estimate(q));
    QVERIFY(d.points.empty());
}

void TestRoofline::badInputSaysWhatToPass()
{
    QString m = errorOf(query("h200-sxm", "int4", 1, 1));
    QVERIFY2(m.contains(QLatin1String("int4")) && m.contains(QLatin1String("fp32, tf32, bf16, fp16, fp8")),
             qPrintable(m));
    m = errorOf(query("h200-sxm", "bf16", 1, 0));
    QVERIFY2(m.contains(QLatin1String("bytes must be greater than 0")), qPrintable(m));
    m = errorOf(query("h200-sxm", "bf16", 1, -5));
    QVERIFY2(m.contains(QLatin1String("bytes")), qPrintable(m));
    m = errorOf(query("h200-sxm", "bf16", -1, 1));
    QVERIFY2(m.contains(QLatin1String("flops")), qPrintable(m));
    m = errorOf(query("a100-sxm-80gb", "fp8", 1, 1));
    QVERIFY2(m.contains(QLatin1String("no fp8 peak")) && m.contains(QLatin1String("bf16")), qPrintable(m));
    RooflineQuery q = query("h200-sxm", "bf16", 1, 1);
    q.measuredMs = 0;
    m = errorOf(q);
    QVERIFY2(m.contains(QLatin1String("ms must be greater than 0")), qPrintable(m));
}

void TestRoofline::ridgeOnlyGivesTheRoofsAlone()
{
    // The original hotkernel's roofline(gpu=...) call: no kernel, only the card's ridge point.
    RooflineQuery q = query("h200-sxm", "bf16", 0, 0);
    q.ridgeOnly = true;
    q.measured = h200Measured();
    const RooflineEstimate e = Roofline::estimate(q);
    QCOMPARE(e.spec.ridge, 989.5e12 / 4800e9);
    QCOMPARE(e.measured->ridge, 804e12 / 4140e9);
    QVERIFY(e.spec.bound.isEmpty() && e.measured->bound.isEmpty());
    const Json j = RooflineResult{q, e, {}, {}}.toJson();
    QVERIFY(j["flops"].is_null() && j["bytes"].is_null() && j["intensity_flops_per_byte"].is_null());
    QVERIFY(j["spec"]["bound"].is_null() && j["spec"]["attainable_ms"].is_null());
    QCOMPARE(j["measured"]["ridge_flops_per_byte"].get<double>(), 804e12 / 4140e9);
    QVERIFY(Roofline::toText(q, e).contains(QLatin1String("ridge point alone")));
    QVERIFY(Roofline::chartData(q, e).points.empty());
    q.measuredMs = 0.5;
    QVERIFY2(errorOf(q).contains(QLatin1String("ms needs flops and bytes")), qPrintable(errorOf(q)));
}

// The tool's JSON derives from the value, and the value read back writes the same JSON: what a
// front-end reads from a result that arrived as JSON is what the tool computed.
void TestRoofline::resultReadsBackWhatItWrote()
{
    RooflineQuery q = query("h200-sxm", "bf16", 4.0 * 4096 * 8192, 2.0 * 4096 * 8192 * 2);
    q.measured = h200Measured();
    q.measuredMs = 0.0327;
    RooflineResult r{q, Roofline::estimate(q), QStringLiteral("argument"),
                     Roofline::chartData(q, Roofline::estimate(q)).ceilings};
    const Json j = r.toJson();
    QCOMPARE(j["card_origin"].get<std::string>(), std::string("argument"));
    QCOMPARE(j["ceilings"].size(), size_t(4));
    const std::optional<RooflineResult> back = RooflineResult::fromJson(j);
    QVERIFY(back);
    QCOMPARE(back->query.card.name, QStringLiteral("NVIDIA H200 SXM"));
    QCOMPARE(*back->intensity(), r.estimate.intensity);
    QVERIFY(qAbs(*back->achievedFlopsPerSecond() / *r.achievedFlopsPerSecond() - 1) < 1e-12);
    QCOMPARE(QString::fromStdString(back->toJson().dump()), QString::fromStdString(j.dump()));

    q.ridgeOnly = true;
    q.measuredMs.reset();
    r = RooflineResult{q, Roofline::estimate(q), QStringLiteral("probed"), {}};
    const std::optional<RooflineResult> ridge = RooflineResult::fromJson(r.toJson());
    QVERIFY(ridge && !ridge->intensity() && !ridge->achievedFlopsPerSecond());
    QCOMPARE(QString::fromStdString(ridge->toJson().dump()), QString::fromStdString(r.toJson().dump()));
    QVERIFY(!RooflineResult::fromJson(Json{{"verdict", "faster"}}));
}

QTEST_GUILESS_MAIN(TestRoofline)
#include "tst_roofline.moc"
