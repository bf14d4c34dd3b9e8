// SPDX-License-Identifier: Apache-2.0
// Calibration storage: per-UUID files in the user's data directory, dated copies under
// results/calibration/ that win when their UUID matches, validation, and the ceilings roofline
// reads. Uses a captured hotkernel-calibrate result when tests/data/inspect/calibrate.json exists.
#include "base/usererror.h"
#include "inspect/calibraterunner.h"
#include "inspect/calibrationstore.h"
#include "process/nativehelpers.h"
#include "process/processspec.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {

Json calibration(const char *uuid, double copy, const char *when)
{
    QFile captured(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/calibrate.json"));
    Json j;
    if (captured.open(QIODevice::ReadOnly)) {
        if (auto parsed = parseJson(captured.readAll()))
            j = *parsed;
    }
    if (!j.is_object()) {
        // The shape hotkernel-calibrate prints (core/native/calibrate.cu), with the H200's figures.
        j = Json{{"tool", "hotkernel-calibrate"},
                 {"format", 1},
                 {"ok", true},
                 {"card", "NVIDIA H200"},
                 {"figures",
                  {{"copy_gbs", {{"value", 4140.0}, {"unit", "GB/s"}, {"method", "m"}}},
                   {"read_gbs", {{"value", 4300.0}, {"unit", "GB/s"}, {"method", "m"}}},
                   {"bf16_tflops", {{"value", 804.0}, {"unit", "TFLOP/s"}, {"method", "m"}}},
                   {"fp16_tflops", {{"value", 790.0}, {"unit", "TFLOP/s"}, {"method", "m"}}}}}};
    }
    j["uuid"] = uuid;
    j["measured_at"] = when;
    j["figures"]["copy_gbs"]["value"] = copy;
    return j;
}

} // namespace

class TestCalibration : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void validation();
    void saveAndLoadByUuid();
    void recordedCopyWinsWhenUuidMatches();
    void loadForCardModel();
    void ceilingsForRoofline();
    void snapshotIgnoresLaterFiles();
    void missingLibraryIsNamedWithWhereToGetIt();

private:
    QTemporaryDir m_work;
};

void TestCalibration::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QDir(CalibrationStore::userDirectory()).removeRecursively();
    QVERIFY(m_work.isValid());
}

void TestCalibration::validation()
{
    QVERIFY(CalibrationStore::validate(calibration("GPU-a", 4000, "2026-12-02T10:00:00Z")).isEmpty());
    QVERIFY(CalibrationStore::validate(Json::array()).contains(QLatin1String("object")));
    QVERIFY(CalibrationStore::validate(Json{{"tool", "x"}}).contains(QLatin1String("hotkernel-calibrate")));
    const Json failed{{"tool", "hotkernel-calibrate"}, {"ok", false}, {"error", "no CUDA device is visible"}};
    QVERIFY(CalibrationStore::validate(failed).contains(QLatin1String("no CUDA device is visible")));
    QVERIFY(CalibrationStore::validate(calibration("GPU-a", 0, "t")).contains(QLatin1String("copy_gbs")));
    QString error;
    QVERIFY(CalibrationStore::save(failed, &error).isEmpty());
    QVERIFY(!error.isEmpty());
}

void TestCalibration::saveAndLoadByUuid()
{
    QVERIFY(!CalibrationStore::load(QStringLiteral("GPU-a"), m_work.path()));
    QString error;
    const QString path = CalibrationStore::save(calibration("GPU-a", 4100, "2026-12-02T10:00:00Z"), &error);
    QVERIFY2(!path.isEmpty(), qPrintable(error));
    QVERIFY(path.startsWith(CalibrationStore::userDirectory()));
    QVERIFY(path.endsWith(QLatin1String("/GPU-a.json")));
    const auto loaded = CalibrationStore::load(QStringLiteral("GPU-a"), m_work.path());
    QVERIFY(loaded);
    QCOMPARE(loaded->origin, path);
    QCOMPARE(loaded->data["figures"]["copy_gbs"]["value"].get<double>(), 4100.0);
    QVERIFY(!CalibrationStore::load(QStringLiteral("GPU-b"), m_work.path()));
    // A UUID cannot climb out of the directory.
    const QString escaped = CalibrationStore::userPath(QStringLiteral("../../etc/x"));
    QCOMPARE(QFileInfo(escaped).absolutePath(),
             QFileInfo(CalibrationStore::userDirectory() + QStringLiteral("/x")).absolutePath());
    QVERIFY(!escaped.contains(QLatin1String("..")));
}

void TestCalibration::recordedCopyWinsWhenUuidMatches()
{
    QString error;
    QVERIFY(!CalibrationStore::saveRecord(calibration("GPU-a", 4140, "2026-12-02T11:00:00Z"), m_work.path(),
                                          &error)
                 .isEmpty());
    QVERIFY(!CalibrationStore::saveRecord(calibration("GPU-a", 4120, "2026-12-02T09:00:00Z"), m_work.path(),
                                          &error)
                 .isEmpty());
    QVERIFY(!CalibrationStore::saveRecord(calibration("GPU-other", 3000, "2026-12-02T12:00:00Z"),
                                          m_work.path(), &error)
                 .isEmpty());
    const QStringList files =
        QDir(CalibrationStore::recordDirectory(m_work.path())).entryList({QStringLiteral("h200-sxm-*.json")});
    QVERIFY2(!files.isEmpty(), "recorded copies are named after the card-table row");
    const auto loaded = CalibrationStore::load(QStringLiteral("GPU-a"), m_work.path());
    QVERIFY(loaded);
    QVERIFY(loaded->origin.contains(QLatin1String("results/calibration/")));
    QCOMPARE(loaded->data["figures"]["copy_gbs"]["value"].get<double>(),
             4140.0); // the newest of the matching ones
}

void TestCalibration::loadForCardModel()
{
    const auto loaded = CalibrationStore::loadForCard(QStringLiteral("h200-sxm"), m_work.path());
    QVERIFY(loaded);
    QCOMPARE(stringField(loaded->data, "uuid"), QStringLiteral("GPU-other")); // newest H200 of any UUID
    QVERIFY(!CalibrationStore::loadForCard(QStringLiteral("rtx-4090"), m_work.path()));
}

void TestCalibration::ceilingsForRoofline()
{
    const auto loaded = CalibrationStore::load(QStringLiteral("GPU-a"), m_work.path());
    QVERIFY(loaded);
    const MeasuredCeilings m = CalibrationStore::ceilings(*loaded);
    QCOMPARE(*m.bandwidthBytesPerSecond, 4140e9);
    QVERIFY(m.peakFlopsPerSecond.count(QStringLiteral("bf16")));
    QVERIFY(m.peakFlopsPerSecond.at(QStringLiteral("bf16")) > 1e14);
    QCOMPARE(m.uuid, QStringLiteral("GPU-a"));
    QCOMPARE(m.origin, loaded->origin);
}

// Issue 41: a verify reads the store before its workers start; a calibration written afterwards
// (a candidate planting a file claiming an absurd copy rate) is not in what was read.
void TestCalibration::snapshotIgnoresLaterFiles()
{
    const CalibrationSnapshot before = CalibrationStore::snapshot(m_work.path());
    QString error;
    QVERIFY(!CalibrationStore::saveRecord(calibration("GPU-a", 400000, "2026-12-09T00:00:00Z"), m_work.path(),
                                          &error)
                 .isEmpty());
    const auto fromBefore =
        CalibrationStore::forDevice(before, QStringLiteral("NVIDIA H200"), QStringLiteral("GPU-a"));
    QVERIFY(fromBefore);
    QCOMPARE(*fromBefore->bandwidthBytesPerSecond, 4140e9);
    // Read now, the planted file is the newest for the card, which is why it must be read before.
    const auto fromNow = CalibrationStore::forDevice(CalibrationStore::snapshot(m_work.path()),
                                                     QStringLiteral("NVIDIA H200"), QStringLiteral("GPU-a"));
    QVERIFY(fromNow);
    QCOMPARE(*fromNow->bandwidthBytesPerSecond, 400000e9);
}

// Issue 44: without CUDA 13's runtime libraries the helper cannot start; the loader's message
// (captured, tests/data/inspect/CAPTURE.md) becomes one that names the library and its source.
void TestCalibration::missingLibraryIsNamedWithWhereToGetIt()
{
    QFile captured(
        QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/calibrate-missing-library.stderr.txt"));
    QVERIFY(captured.open(QIODevice::ReadOnly));
    ProcessResult r;
    r.status = ProcessResult::Status::Finished;
    r.exitCode = 127;
    r.standardError = captured.readAll();
    QCOMPARE(NativeHelpers::missingLibrary(r.standardError), QStringLiteral("libcudart.so.13"));
    QString message;
    try {
        CalibrateRunner::interpret(r, QStringLiteral("hotkernel-calibrate --quick on ssh://gpu-host/work"));
    } catch (const UserError &e) {
        message = e.message();
    }
    // Where it ran stays in the message (a host's name), with the library and where to get it.
    QVERIFY2(
        message.startsWith(QLatin1String("hotkernel-calibrate --quick on ssh://gpu-host/work failed: ")) &&
            message.contains(QLatin1String("libcudart.so.13")) &&
            message.contains(QLatin1String("CUDA Toolkit")) &&
            message.contains(QLatin1String("pip install nvidia-cuda-runtime")) &&
            !message.contains(QLatin1String("not a JSON object")),
        qPrintable(message));
    QCOMPARE(NativeHelpers::missingLibrary("a JSON line\n"), QString());
}

QTEST_GUILESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
