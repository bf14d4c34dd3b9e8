// SPDX-License-Identifier: Apache-2.0
// Without a GPU or driver (CI): gpu_info reports available=false with a reason and does not
// fail; roofline names the cards to pass; a given card works from the spec alone, and picks up
// a calibration of the same card model recorded in the working directory.
#include "base/job.h"
#include "inspect/calibrationstore.h"
#include "inspect/gpuprobe.h"
#include "inspect/rooflineresult.h"
#include "session/schemavalidator.h"
#include "session/session.h"
#include "sessionoptions.h"
#include "testlimits.h"
#include "tools/builtintools.h"
#include "tools/gpuinforesult.h"

#include <QCoroTask>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace hotkernel;

namespace {

ToolResult callTool(Session &session, const QString &tool, Json arguments)
{
    Job *job = session.start(tool, std::move(arguments), QStringLiteral("test"));
    QSignalSpy finished(job, &Job::finished);
    if (job->state() == Job::State::Running && !finished.wait(hotkernel::test::kEventLimitMs))
        qFatal("%s did not finish", qPrintable(tool));
    return job->result();
}

QString outputProblem(Session &session, const QString &tool, const ToolResult &r)
{
    return SchemaValidator::validate(session.tools().find(tool)->outputSchema, r.structured,
                                     QStringLiteral("result"));
}

} // namespace

class TestGpuProbe : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void snapshotWithoutDriver();
    void gpuInfoWithoutGpu();
    void rooflineWithoutGpuNeedsACard();
    void rooflineWithCardUsesSpecThenRecordedCalibration();
    void rooflineUnknownCardListsKnownOnes();

private:
    QTemporaryDir m_dir;
};

void TestGpuProbe::initTestCase()
{
    // Read before the first probe: these stand in for a machine without the NVIDIA driver.
    qputenv("HOTKERNEL_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
    qputenv("HOTKERNEL_NVIDIA_SMI", "/nonexistent/nvidia-smi");
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

void TestGpuProbe::snapshotWithoutDriver()
{
    std::optional<Json> result;
    int ticks = 0;
    QTimer ticker;
    connect(&ticker, &QTimer::timeout, this, [&] { ++ticks; });
    ticker.start(0);
    auto probe = [&]() -> QCoro::Task<void> { result = co_await GpuProbe::snapshot(); };
    auto task = probe();
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), hotkernel::test::kEventLimitMs);
    QVERIFY(ticks > 0); // the probe ran off this thread / asynchronously; the loop kept turning
    QCOMPARE(result->value("available", true), false);
    const QString reason = stringField(*result, "reason");
    QVERIFY2(reason.contains(QLatin1String("NVML")) && reason.contains(QLatin1String("nvidia-smi")),
             qPrintable(reason));
}

void TestGpuProbe::gpuInfoWithoutGpu()
{
    Session session(builtinTools(), test::optionsFor(m_dir.path()));
    const ToolResult r = callTool(session, QStringLiteral("gpu_info"), Json::object());
    QVERIFY2(!r.isError, qPrintable(r.text));
    QCOMPARE(r.structured["available"].get<bool>(), false);
    QVERIFY(!stringField(r.structured, "reason").isEmpty());
    QVERIFY(r.structured["card"].is_null());
    QVERIFY(r.text.startsWith(QLatin1String("no GPU: ")));
    // The typed value front-ends read is the one the JSON was written from.
    const GpuInfoResult *typed = r.as<GpuInfoResult>();
    QVERIFY(typed && !typed->available && typed->name().isEmpty());
    QVERIFY(typed->toJson() == r.structured);
    QVERIFY(GpuInfoResult::fromJson(r.structured)->toJson() == r.structured);
    const QString problem = outputProblem(session, QStringLiteral("gpu_info"), r);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestGpuProbe::rooflineWithoutGpuNeedsACard()
{
    Session session(builtinTools(), test::optionsFor(m_dir.path()));
    const ToolResult r = callTool(session, QStringLiteral("roofline"), Json{{"flops", 1e9}, {"bytes", 1e8}});
    QVERIFY(r.isError);
    QVERIFY2(r.text.contains(QLatin1String("no GPU here")) && r.text.contains(QLatin1String("h200-sxm")),
             qPrintable(r.text));
}

void TestGpuProbe::rooflineWithCardUsesSpecThenRecordedCalibration()
{
    Session session(builtinTools(), test::optionsFor(m_dir.path()));
    const Json args{{"card", "NVIDIA H200"},
                    {"dtype", "bf16"},
                    {"flops", 4.0 * 4096 * 8192},
                    {"bytes", 2.0 * 4096 * 8192 * 2},
                    {"ms", 0.0327}};
    ToolResult r = callTool(session, QStringLiteral("roofline"), args);
    QVERIFY2(!r.isError, qPrintable(r.text));
    QCOMPARE(r.structured["card"]["id"].get<std::string>(), std::string("h200-sxm"));
    QCOMPARE(r.structured["spec"]["bound"].get<std::string>(), std::string("memory"));
    QVERIFY(r.structured["measured"].is_null());
    QVERIFY(r.text.contains(QLatin1String("hotkernel calibrate")));
    QString problem = outputProblem(session, QStringLiteral("roofline"), r);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    // A calibration of another H200 recorded here (results/calibration/) stands in for this model.
    const Json calibration{{"tool", "hotkernel-calibrate"},
                           {"format", 1},
                           {"ok", true},
                           {"card", "NVIDIA H200"},
                           {"uuid", "GPU-00000000-0000-0000-0000-000000000000"},
                           {"measured_at", "2026-12-02T10:00:00Z"},
                           {"figures",
                            {{"copy_gbs", {{"value", 4140.0}, {"unit", "GB/s"}, {"method", "test"}}},
                             {"bf16_tflops", {{"value", 804.0}, {"unit", "TFLOP/s"}, {"method", "test"}}}}}};
    QString error;
    QVERIFY2(!CalibrationStore::saveRecord(calibration, m_dir.path(), &error).isEmpty(), qPrintable(error));
    r = callTool(session, QStringLiteral("roofline"), args);
    QVERIFY2(!r.isError, qPrintable(r.text));
    QCOMPARE(r.structured["measured"]["bandwidth_gbs"].get<double>(), 4140.0);
    QVERIFY(qAbs(r.structured["achieved"]["measured_floor_fraction"].get<double>() - 0.9914) < 0.001);
    const RooflineResult *typed = r.as<RooflineResult>();
    QVERIFY(typed && typed->toJson() == r.structured);
    QCOMPARE(typed->query.card.name, QStringLiteral("NVIDIA H200 SXM"));
    QCOMPARE(*typed->intensity(), 1.0);
    QVERIFY(qAbs(*typed->achievedFlopsPerSecond() - 4.0 * 4096 * 8192 / 0.0327e-3) < 1);
    problem = outputProblem(session, QStringLiteral("roofline"), r);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestGpuProbe::rooflineUnknownCardListsKnownOnes()
{
    Session session(builtinTools(), test::optionsFor(m_dir.path()));
    ToolResult r =
        callTool(session, QStringLiteral("roofline"), Json{{"card", "Voodoo 2"}, {"flops", 1}, {"bytes", 1}});
    QVERIFY(r.isError);
    QVERIFY2(r.text.contains(QLatin1String("Voodoo 2")) && r.text.contains(QLatin1String("rtx-3090")),
             qPrintable(r.text));
    r = callTool(session, QStringLiteral("roofline"), Json{{"card", "h100-sxm"}, {"flops", 1}, {"bytes", 0}});
    QVERIFY(r.isError);
    QVERIFY2(r.text.contains(QLatin1String("bytes must be greater than 0")), qPrintable(r.text));
}

QTEST_GUILESS_MAIN(TestGpuProbe)
#include "tst_gpuprobe.moc"
