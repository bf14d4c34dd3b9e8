// SPDX-License-Identifier: Apache-2.0
// nvidia-smi query output as captured on the GPU machine by tests/gpu/run_native.sh
// (tests/data/inspect/nvidia-smi-*.csv; the commands are in nvidia-smi-commands.txt there).
#include "inspect/cardtable.h"
#include "inspect/nvidiasmiparser.h"

#include "golden.h"
#include "parsertext.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>
#include <algorithm>

using namespace hotkernel;

namespace {

QByteArray capture(const char *name)
{
    QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/") + QString::fromLatin1(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

#define REQUIRE_CAPTURE(var, name)                                                                           \
    const QByteArray var = capture(name);                                                                    \
    if (var.isEmpty())                                                                                       \
        QSKIP("tests/data/inspect/" name                                                                     \
              " is not captured yet: run tests/gpu/run_native.sh on the GPU machine and "                    \
              "copy its output there");

} // namespace

class TestNvidiaSmi : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void queryWithoutHeader();
    void queryWithHeaderMatchesByName();
    void computeApps();
    void computeAppsHeaderOnly();
    void withUnitsMatchesNoUnits();
    void clockEventReasonBits();
    void golden_data();
    void golden();
};

void TestNvidiaSmi::queryWithoutHeader()
{
    REQUIRE_CAPTURE(csv, "nvidia-smi-query-noheader.csv");
    const std::vector<Json> gpus = NvidiaSmiParser::parseGpus(csv);
    QVERIFY(!gpus.empty());
    const Json &g = gpus.front();
    const QString name = stringField(g, "name");
    QVERIFY2(name.startsWith(QLatin1String("NVIDIA")), qPrintable(name));
    QVERIFY2(CardTable::builtin().find(name), qPrintable(name + QStringLiteral(" has no card-table row")));
    QVERIFY(stringField(g, "uuid").startsWith(QLatin1String("GPU-")));
    QVERIFY(!stringField(g, "driver").isEmpty());
    QVERIFY(g["memory_total_mib"].is_number() && g["memory_total_mib"].get<double>() > 1000);
    QVERIFY(g["power_limit_w"].is_number() && g["power_limit_w"].get<double>() > 0);
    QVERIFY(QRegularExpression(QStringLiteral("^\\d+\\.\\d+$"))
                .match(stringField(g, "compute_capability"))
                .hasMatch());
    QVERIFY(g["max_sm_clock_mhz"].is_number() &&
            g["max_sm_clock_mhz"].get<double>() >= g["sm_clock_mhz"].get<double>());
    QVERIFY(g["temperature_c"].is_number());
    QVERIFY(g["throttle_reasons"].is_array());
}

void TestNvidiaSmi::queryWithHeaderMatchesByName()
{
    REQUIRE_CAPTURE(withHeader, "nvidia-smi-query-header.csv");
    REQUIRE_CAPTURE(without, "nvidia-smi-query-noheader.csv");
    const std::vector<Json> a = NvidiaSmiParser::parseGpus(withHeader);
    const std::vector<Json> b = NvidiaSmiParser::parseGpus(without);
    QCOMPARE(a.size(), b.size()); // the header line is not taken for a GPU
    // Fields that do not change between two captures a second apart.
    for (const char *key : {"name", "uuid", "driver", "memory_total_mib", "power_limit_w",
                            "compute_capability", "max_sm_clock_mhz"})
        QVERIFY2(a.front()[key] == b.front()[key], key);
    // Columns in another order are matched by their header names.
    QStringList reversed = NvidiaSmiParser::queryFields();
    std::reverse(reversed.begin(), reversed.end());
    const std::vector<Json> c = NvidiaSmiParser::parseGpus(withHeader, reversed);
    QCOMPARE(c.size(), a.size());
    QCOMPARE(stringField(c.front(), "uuid"), stringField(a.front(), "uuid"));
}

void TestNvidiaSmi::computeApps()
{
    REQUIRE_CAPTURE(csv, "nvidia-smi-apps.csv");
    const std::vector<Json> apps = NvidiaSmiParser::parseApps(csv);
    QVERIFY(!apps.empty()); // captured while the traced torch script held the GPU
    for (const Json &app : apps) {
        QVERIFY(app["pid"].get<qint64>() > 0);
        QVERIFY(!stringField(app, "process_name").isEmpty());
    }
}

void TestNvidiaSmi::computeAppsHeaderOnly()
{
    // `--format=csv` on an idle GPU: the header line and nothing else.
    REQUIRE_CAPTURE(csv, "nvidia-smi-compute-apps.csv");
    QVERIFY(csv.startsWith("pid"));
    QVERIFY(NvidiaSmiParser::parseApps(csv).empty());
}

void TestNvidiaSmi::withUnitsMatchesNoUnits()
{
    // The first capture (CAPTURE.md): 12 fields, once `--format=csv` (header, units on values),
    // once `--format=csv,noheader,nounits`.
    REQUIRE_CAPTURE(withUnits, "nvidia-smi-query.csv");
    REQUIRE_CAPTURE(plain, "nvidia-smi-query-nounits.csv");
    const QStringList fields =
        QStringLiteral("name,uuid,driver_version,memory.total,power.limit,compute_cap,clocks.max.sm,"
                       "clocks.sm,clocks.mem,temperature.gpu,clocks_event_reasons.active,pci.bus_id")
            .split(QLatin1Char(','));
    const std::vector<Json> a = NvidiaSmiParser::parseGpus(withUnits, fields);
    const std::vector<Json> b = NvidiaSmiParser::parseGpus(plain, fields);
    QCOMPARE(a.size(), size_t(1));
    QCOMPARE(b.size(), size_t(1));
    QCOMPARE(a.front()["memory_total_mib"].get<double>(), 143771.0); // "143771 MiB"
    QCOMPARE(a.front()["power_limit_w"].get<double>(), 700.0);       // "700.00 W"
    QCOMPARE(a.front()["sm_clock_mhz"].get<double>(), 345.0);        // header says clocks.current.sm
    QCOMPARE(a.front()["mem_clock_mhz"].get<double>(), 3201.0);
    QCOMPARE(toStringList(a.front()["throttle_reasons"]), QStringList{QStringLiteral("gpu_idle")});
    QVERIFY(a.front()["memory_used_mib"].is_null()); // not asked for
    QVERIFY2(a.front() == b.front(), (a.front().dump() + "\n" + b.front().dump()).c_str());
}

void TestNvidiaSmi::clockEventReasonBits()
{
    QCOMPARE(NvidiaSmiParser::clockEventReasons(0), QStringList());
    QCOMPARE(NvidiaSmiParser::clockEventReasons(0x1 | 0x4),
             (QStringList{QStringLiteral("gpu_idle"), QStringLiteral("sw_power_cap")}));
    QCOMPARE(NvidiaSmiParser::clockEventReasons(0x40), QStringList{QStringLiteral("hw_thermal_slowdown")});
}

// Every capture's whole parse against tests/data/golden/<tag>.expected.txt, one JSON object a line.
void TestNvidiaSmi::golden_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QStringList>("fields"); // empty: --query-compute-apps
    // The first capture's twelve fields (CAPTURE.md), as withUnitsMatchesNoUnits names them.
    const QStringList firstCapture =
        QStringLiteral("name,uuid,driver_version,memory.total,power.limit,compute_cap,clocks.max.sm,"
                       "clocks.sm,clocks.mem,temperature.gpu,clocks_event_reasons.active,pci.bus_id")
            .split(QLatin1Char(','));
    QTest::newRow("nvidia-smi-query-noheader")
        << QStringLiteral("nvidia-smi-query-noheader.csv") << NvidiaSmiParser::queryFields();
    QTest::newRow("nvidia-smi-query-header")
        << QStringLiteral("nvidia-smi-query-header.csv") << NvidiaSmiParser::queryFields();
    QTest::newRow("nvidia-smi-query") << QStringLiteral("nvidia-smi-query.csv") << firstCapture;
    QTest::newRow("nvidia-smi-query-nounits")
        << QStringLiteral("nvidia-smi-query-nounits.csv") << firstCapture;
    QTest::newRow("nvidia-smi-apps") << QStringLiteral("nvidia-smi-apps.csv") << QStringList();
}

void TestNvidiaSmi::golden()
{
    QFETCH(QString, fixture);
    QFETCH(QStringList, fields);
    const QByteArray csv = capture(qPrintable(fixture));
    QVERIFY2(!csv.isEmpty(), qPrintable(fixture + QStringLiteral(" is missing or empty")));
    const std::vector<Json> records =
        fields.isEmpty() ? NvidiaSmiParser::parseApps(csv) : NvidiaSmiParser::parseGpus(csv, fields);
    HK_COMPARE_GOLDEN(QString::fromLatin1(QTest::currentDataTag()), parsertext::jsonRecords(records));
}

QTEST_GUILESS_MAIN(TestNvidiaSmi)
#include "tst_nvidiasmi.moc"
