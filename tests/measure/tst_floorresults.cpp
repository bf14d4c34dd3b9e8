// SPDX-License-Identifier: Apache-2.0
// The roofline floor (issue 25) against every recorded verify under results/ (real H200 runs of
// the five examples): no side of any of them may be below the floor at the chosen tolerance, with
// the calibration recorded in results/calibration (by the card's UUID, else the same card model)
// or the spec. gemv's kept candidate runs at about 104% of the copy rate, so the tolerance matters.
#include "inspect/calibrationstore.h"
#include "measure/physicalfloor.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>

using namespace hotkernel;

namespace {
const QString kRoot = QStringLiteral(HOTKERNEL_SOURCE_DIR);

struct Checked
{
    QString file;
    PhysicalFloor::Report report;
};

std::vector<double> samples(const Json &stats)
{
    std::vector<double> v;
    if (stats.is_object() && stats.value("samples_ms", Json()).is_array()) {
        for (const Json &s : stats["samples_ms"])
            v.push_back(s.get<double>());
    }
    return v;
}

std::vector<Checked> checkAll(double tolerance)
{
    std::vector<Checked> out;
    QDirIterator it(kRoot + QStringLiteral("/results"), {QStringLiteral("*.json")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.contains(QStringLiteral("/results/calibration/")))
            continue;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const Json log = Json::parse(f.readAll().toStdString(), nullptr, false);
        if (!log.is_object() || stringField(log, "kind") != QLatin1String("hotkernel-result-log"))
            continue;
        const Json verify = log.value("verify", Json::object());
        const Json gpu = verify.value("gpu", Json::object());
        const Json contract = verify.value("contract", Json::object());
        const QString name = stringField(gpu, "name");
        const std::optional<MeasuredCeilings> measured =
            CalibrationStore::forDevice(name, stringField(gpu, "uuid"), kRoot);
        const FloorCeilings c = PhysicalFloor::ceilings(CardTable::builtin().find(name), measured,
                                                        stringField(contract, "dtype"));
        out.push_back(
            {QDir(kRoot).relativeFilePath(path),
             PhysicalFloor::judge(c, PhysicalFloor::work(contract),
                                  {{QStringLiteral("baseline"), samples(verify["baseline_stats"])},
                                   {QStringLiteral("candidate"), samples(verify["candidate_stats"])}},
                                  tolerance)});
    }
    return out;
}
} // namespace

class TestFloorResults : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void recordedVerifiesPassTheFloor()
    {
        const std::vector<Checked> all = checkAll(PhysicalFloor::kTolerance);
        QVERIFY2(all.size() >= 80,
                 qPrintable(QStringLiteral("only %1 result logs under results/").arg(all.size())));
        QSet<QString> targets;
        for (const Checked &c : all) {
            QVERIFY2(c.report.json["applied"] == Json(true), qPrintable(c.file));
            QVERIFY2(c.report.json["bandwidth_source"] == Json("calibration"), qPrintable(c.file));
            QCOMPARE(c.report.json["checked"].size(), size_t(2));
            QVERIFY2(c.report.violation.isEmpty(),
                     qPrintable(c.file + QStringLiteral(": ") + c.report.violation));
            targets.insert(c.file.section(QLatin1Char('/'), 1, 1));
        }
        for (const char *t : {"rmsnorm", "softmax", "gemv", "int4_gemv", "decode_attention"})
            QVERIFY2(targets.contains(QLatin1String(t)), t);
    }

    // Without the tolerance, gemv's candidates would fail: the test above would pass vacuously
    // with a floor that never binds.
    void gemvBeatsTheCopyRate()
    {
        int over = 0;
        for (const Checked &c : checkAll(1.0)) {
            if (!c.report.violation.isEmpty()) {
                QVERIFY2(c.file.startsWith(QStringLiteral("results/gemv/")), qPrintable(c.file));
                ++over;
            }
        }
        QVERIFY(over >= 3);
    }
};

QTEST_GUILESS_MAIN(TestFloorResults)
#include "tst_floorresults.moc"
