// SPDX-License-Identifier: Apache-2.0
// The roofline floor's rule (issue 25): message text, calibration before spec, the compute-bound
// case, the tolerance, and no floor (said so) without a byte count or a GPU.
#include "measure/physicalfloor.h"

#include <QTest>

using namespace hotkernel;

namespace {
const CardSpec &h200()
{
    const CardSpec *card = CardTable::builtin().find(QStringLiteral("NVIDIA H200"));
    Q_ASSERT(card);
    return *card;
}

// The copy rate and bf16 peak of results/calibration/h200-sxm-20261202-115132.json.
MeasuredCeilings calibrated()
{
    MeasuredCeilings m;
    m.bandwidthBytesPerSecond = 4155.6e9;
    m.peakFlopsPerSecond[QStringLiteral("bf16")] = 699.0e12;
    m.origin = QStringLiteral("results/calibration/h200-sxm-20261202-115132.json");
    m.card = QStringLiteral("NVIDIA H200");
    return m;
}

FloorWork bytesOnly(double bytes)
{
    return FloorWork{bytes, std::nullopt, QStringLiteral("bf16"), QStringLiteral("cuda")};
}

const double kMiB64 = 64.0 * 1024 * 1024;
} // namespace

class TestPhysicalFloor : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void impossibleCopySaysWhatAndWhose()
    {
        const FloorCeilings c = PhysicalFloor::ceilings(&h200(), calibrated(), QStringLiteral("bf16"));
        QCOMPARE(c.bandwidthSource, QStringLiteral("calibration"));
        const FloorCheck r = PhysicalFloor::check(c, bytesOnly(kMiB64), 4.1e-3);
        QVERIFY(r.applied);
        QVERIFY(r.violated);
        QCOMPARE(r.bound, QStringLiteral("memory"));
        QVERIFY2(
            r.message.startsWith(QStringLiteral("faster than this card can move these bytes: 4.1 us for 64 "
                                                "MiB is 16.4 TB/s, the measured copy rate is 4.16 TB/s")),
            qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("target author's")), qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("min_bytes")), qPrintable(r.message));
        QCOMPARE(r.floorMs, kMiB64 / 4155.6e9 * 1e3);
    }

    // Issue 41: a calibration above the spec sheet (planted or broken) is capped at the spec.
    void calibrationAboveTheSpecIsCapped()
    {
        MeasuredCeilings planted = calibrated();
        planted.bandwidthBytesPerSecond = 200e12; // 200 TB/s on a 4.8 TB/s card
        planted.peakFlopsPerSecond[QStringLiteral("bf16")] = 1e18;
        const FloorCeilings c = PhysicalFloor::ceilings(&h200(), planted, QStringLiteral("bf16"));
        QCOMPARE(c.bandwidthSource, QStringLiteral("spec"));
        QCOMPARE(*c.bandwidthBytesPerSecond, *h200().bandwidthBytesPerSecond());
        QCOMPARE(c.peakSource, QStringLiteral("spec"));
        QVERIFY2(c.capped.contains(QStringLiteral("copy rate")), qPrintable(c.capped));
        QVERIFY2(c.capped.contains(QStringLiteral("bf16 peak")), qPrintable(c.capped));
        // The 4.1 us for 64 MiB that the planted file would have allowed stays impossible.
        QVERIFY(PhysicalFloor::check(c, bytesOnly(kMiB64), 4.1e-3).violated);
        const PhysicalFloor::Report report =
            PhysicalFloor::judge(c, bytesOnly(kMiB64), {{QStringLiteral("candidate"), {4.1e-3}}});
        QVERIFY(report.json["capped"].is_string());
        // An honest calibration below the spec is used as measured and caps nothing.
        const FloorCeilings honest = PhysicalFloor::ceilings(&h200(), calibrated(), QStringLiteral("bf16"));
        QVERIFY(honest.capped.isEmpty());
        QCOMPARE(honest.bandwidthSource, QStringLiteral("calibration"));
    }

    void specWithoutCalibration()
    {
        const FloorCeilings c = PhysicalFloor::ceilings(&h200(), std::nullopt, QStringLiteral("bf16"));
        QCOMPARE(c.bandwidthSource, QStringLiteral("spec"));
        QCOMPARE(c.peakSource, QStringLiteral("spec"));
        QVERIFY(c.calibration.isEmpty());
        QCOMPARE(*c.bandwidthBytesPerSecond, *h200().bandwidthBytesPerSecond());
        const FloorCheck r = PhysicalFloor::check(c, bytesOnly(kMiB64), 4.1e-3);
        QVERIFY(r.violated);
        QVERIFY2(r.message.contains(QStringLiteral("the spec bandwidth of the NVIDIA H200 SXM is 4.8 TB/s")),
                 qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("hotkernel calibrate")), qPrintable(r.message));
    }

    void toleranceAllowsReadOnlyStreams()
    {
        // gemv's kept candidate on the H200: 134250496 bytes in 31.19 us, 104% of the copy rate.
        const FloorCeilings c = PhysicalFloor::ceilings(&h200(), calibrated(), QStringLiteral("bf16"));
        const FloorWork gemv{134250496.0, 134217728.0, QStringLiteral("bf16"), QStringLiteral("cuda")};
        QVERIFY(!PhysicalFloor::check(c, gemv, 0.031186559200286866).violated);
        QVERIFY(PhysicalFloor::check(c, gemv, 0.031186559200286866, 1.0).violated);
        // The edge: exactly tolerance times the copy rate is still allowed, a little more is not.
        const double edgeMs = 134250496.0 / 4155.6e9 * 1e3 / PhysicalFloor::kTolerance;
        QVERIFY(!PhysicalFloor::check(c, gemv, edgeMs * 1.001).violated);
        QVERIFY(PhysicalFloor::check(c, gemv, edgeMs * 0.99).violated);
    }

    void computeBound()
    {
        // An 8192^3 bf16 matmul: 1.1 TFLOP over 384 MiB; at 699 TFLOP/s it needs 1.57 ms.
        const double flops = 2.0 * 8192 * 8192 * 8192;
        const FloorWork mm{3.0 * 8192 * 8192 * 2, flops, QStringLiteral("bf16"), QStringLiteral("cuda")};
        const FloorCeilings c = PhysicalFloor::ceilings(&h200(), calibrated(), QStringLiteral("bf16"));
        QCOMPARE(c.peakSource, QStringLiteral("calibration"));
        const FloorCheck fine = PhysicalFloor::check(c, mm, 1.6);
        QVERIFY(fine.applied);
        QVERIFY(!fine.violated);
        QCOMPARE(fine.bound, QStringLiteral("compute"));
        QCOMPARE(fine.floorMs, flops / 699.0e12 * 1e3);
        const FloorCheck r = PhysicalFloor::check(c, mm, 0.5);
        QVERIFY(r.violated);
        QVERIFY2(
            r.message.startsWith(QStringLiteral("faster than this card can compute these flops: 500 us for "
                                                "1.1 TFLOP is 2.2 PFLOP/s, the measured bf16 peak is 699 "
                                                "TFLOP/s")),
            qPrintable(r.message));
    }

    void fp32UsesTheTensorCorePeak()
    {
        const FloorCeilings c = PhysicalFloor::ceilings(&h200(), calibrated(), QStringLiteral("fp32"));
        QCOMPARE(c.peakSource, QStringLiteral("spec"));
        QCOMPARE(*c.peakFlopsPerSecond, *h200().peakFlopsPerSecond(QStringLiteral("tf32")));
        QVERIFY(*c.peakFlopsPerSecond > *h200().peakFlopsPerSecond(QStringLiteral("fp32")));
    }

    void noBytesNoFloor()
    {
        const FloorCeilings c = PhysicalFloor::ceilings(&h200(), calibrated(), QStringLiteral("bf16"));
        const FloorWork w =
            PhysicalFloor::work(Json{{"bytes", nullptr}, {"flops", nullptr}, {"dtype", "bf16"}});
        QVERIFY(!w.bytes);
        const FloorCheck r = PhysicalFloor::check(c, w, 1e-9);
        QVERIFY(!r.applied);
        QVERIFY(!r.violated);
        QVERIFY2(r.note.contains(QStringLiteral("no byte count")), qPrintable(r.note));
        const PhysicalFloor::Report report = PhysicalFloor::judge(c, w, {{QStringLiteral("script"), {1e-9}}});
        QVERIFY(report.violation.isEmpty());
        QVERIFY(report.json["applied"] == Json(false));
        QVERIFY(report.json["floor_ms"].is_null());
        QVERIFY(toQt(report.json["note"].get<std::string>()).contains(QStringLiteral("no byte count")));
        QCOMPARE(PhysicalFloor::summary(report.json), toQt(report.json["note"].get<std::string>()));
    }

    void cpuTargetsHaveNoFloor()
    {
        const FloorCeilings c = PhysicalFloor::ceilings(&h200(), calibrated(), QStringLiteral("fp32"));
        const FloorWork w{kMiB64, std::nullopt, QStringLiteral("fp32"), QStringLiteral("cpu")};
        const FloorCheck r = PhysicalFloor::check(c, w, 1e-6);
        QVERIFY(!r.applied);
        QVERIFY(r.note.contains(QStringLiteral("CPU")));
    }

    void unknownCardHasNoFloor()
    {
        const FloorCeilings c = PhysicalFloor::ceilings(nullptr, std::nullopt, QStringLiteral("bf16"));
        const FloorCheck r = PhysicalFloor::check(c, bytesOnly(kMiB64), 1e-6);
        QVERIFY(!r.applied);
        QVERIFY2(r.note.contains(QStringLiteral("not in the card table")), qPrintable(r.note));
    }

    void judgeNamesTheSideAndRecordsTheFloor()
    {
        const FloorCeilings c = PhysicalFloor::ceilings(&h200(), calibrated(), QStringLiteral("bf16"));
        // The baseline is honest (0.9 of the copy rate); the candidate's fastest run is not.
        const double honest = kMiB64 / 4155.6e9 * 1e3 / 0.9;
        const PhysicalFloor::Report report =
            PhysicalFloor::judge(c, bytesOnly(kMiB64),
                                 {{QStringLiteral("baseline"), {honest, honest * 1.01}},
                                  {QStringLiteral("candidate"), {0.02, 4.1e-3}}});
        QVERIFY2(report.violation.startsWith(QStringLiteral("the candidate: faster than this card can move")),
                 qPrintable(report.violation));
        const Json &j = report.json;
        QVERIFY(j["applied"] == Json(true));
        QVERIFY(j["bound"] == Json("memory"));
        QVERIFY(j["bandwidth_source"] == Json("calibration"));
        QVERIFY(j["calibration"] == Json("results/calibration/h200-sxm-20261202-115132.json"));
        QCOMPARE(j["tolerance"].get<double>(), PhysicalFloor::kTolerance);
        QVERIFY(j["checked"]["baseline"]["violated"] == Json(false));
        QVERIFY(j["checked"]["candidate"]["violated"] == Json(true));
        QCOMPARE(j["checked"]["candidate"]["min_ms"].get<double>(), 4.1e-3);
        QCOMPARE(PhysicalFloor::summary(j),
                 QStringLiteral("16.1 us per call (memory-bound, 4.16 TB/s from calibration, tolerance %1x)")
                     .arg(QString::number(PhysicalFloor::kTolerance, 'g', 3)));
    }
};

QTEST_GUILESS_MAIN(TestPhysicalFloor)
#include "tst_physicalfloor.moc"
