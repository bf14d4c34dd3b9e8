// SPDX-License-Identifier: Apache-2.0
// On a machine with an NVIDIA GPU (label gpu): the real probe, the card-table match, and a quick
// run of the native calibrate helper when it was built. Skips without a GPU.
#include "inspect/calibraterunner.h"
#include "inspect/cardtable.h"
#include "inspect/gpuprobe.h"
#include "inspect/localhost.h"
#include "process/nativehelpers.h"
#include "process/pythonlocator.h"
#include "testlimits.h"

#include <QCoroTask>
#include <QTest>

using namespace hotkernel;

class TestGpuProbeGpu : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void snapshot();
    void quickCalibration();

private:
    Json m_gpu;
};

void TestGpuProbeGpu::initTestCase()
{
    std::optional<Json> result;
    auto probe = [&]() -> QCoro::Task<void> { result = co_await GpuProbe::snapshot(); };
    auto task = probe();
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), hotkernel::test::kEventLimitMs);
    m_gpu = *result;
    if (!m_gpu.value("available", false))
        QSKIP(qPrintable(QStringLiteral("no GPU here: %1").arg(stringField(m_gpu, "reason"))));
}

void TestGpuProbeGpu::snapshot()
{
    QVERIFY(!stringField(m_gpu, "name").isEmpty());
    QVERIFY(stringField(m_gpu, "uuid").startsWith(QLatin1String("GPU-")));
    QVERIFY(m_gpu["memory_total_mib"].get<double>() > 1000);
    QVERIFY(!stringField(m_gpu, "compute_capability").isEmpty());
    QVERIFY(m_gpu["busy_processes"].is_array());
    if (!CardTable::builtin().find(stringField(m_gpu, "name")))
        qWarning("%s has no card-table row", qPrintable(stringField(m_gpu, "name")));
}

void TestGpuProbeGpu::quickCalibration()
{
    if (NativeHelpers::locate(NativeHelpers::calibrateFileName()).isEmpty())
        QSKIP("hotkernel-calibrate was not built (no CUDA Toolkit)");
    std::optional<Json> result;
    QString error;
    const QStringList quick(QStringLiteral("--quick"));
    PythonLocator python;
    LocalHost host(python);
    auto run = [&]() -> QCoro::Task<void> {
        try {
            result = co_await CalibrateRunner::run(host, quick);
        } catch (const std::exception &e) {
            error = QString::fromUtf8(e.what());
            result = Json();
        }
    };
    auto task = run();
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), hotkernel::test::kEventLimitMs);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(stringField(*result, "uuid"), stringField(m_gpu, "uuid")); // CUDA and NVML agree on the card
    QVERIFY((*result)["figures"]["copy_gbs"]["value"].get<double>() > 10);
    QVERIFY((*result)["figures"]["bf16_tflops"]["value"].get<double>() > 1);
}

QTEST_GUILESS_MAIN(TestGpuProbeGpu)
#include "tst_gpuprobe_gpu.moc"
