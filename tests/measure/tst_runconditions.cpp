// SPDX-License-Identifier: Apache-2.0
// RunConditionRule and RunConditions::fromProbes (issue 41): a pair whose sides ran at SM clocks
// further apart than the tolerance, or during whose runs the other side's stopped processes
// computed, cannot be compared; without NVML nothing is judged and nothing is dropped.
#include "measure/runconditions.h"

#include <QTest>

using namespace hotkernel;

namespace {

RunConditions at(double before, double after)
{
    RunConditions c;
    c.clockBeforeMhz = before;
    c.clockAfterMhz = after;
    return c;
}

// What GpuProbe::processUtilization() returns (our own JSON, not NVML's output).
Json utilisation(Json processes, Json periodUs)
{
    return Json{{"known", true},
                {"source", "nvml"},
                {"processes", std::move(processes)},
                {"sample_period_us", std::move(periodUs)},
                {"sm_clock_mhz", 1980},
                {"clock_event_reasons", Json::array({"sw_power_cap"})}};
}

} // namespace

class TestRunConditions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void clocks_data()
    {
        QTest::addColumn<double>("baseline");
        QTest::addColumn<double>("candidate");
        QTest::addColumn<bool>("problem");
        QTest::newRow("same") << 1980.0 << 1980.0 << false;
        QTest::newRow("4.9% apart") << 1980.0 << 1883.0 << false;
        QTest::newRow("5.3% apart") << 1980.0 << 1875.0 << true;
        QTest::newRow("either way") << 1500.0 << 1980.0 << true;
    }
    void clocks()
    {
        QFETCH(double, baseline);
        QFETCH(double, candidate);
        QFETCH(bool, problem);
        const QString why = RunConditionRule::pairProblem(at(baseline, baseline), at(candidate, candidate));
        QCOMPARE(!why.isEmpty(), problem);
        if (problem)
            QVERIFY2(why.contains(QStringLiteral("SM clock")), qPrintable(why));
        QVERIFY(!RunConditionRule::frozenSideComputed(at(baseline, baseline), at(candidate, candidate)));
    }

    void aSideIsTheMeanOfItsTwoReadings()
    {
        // 1980 and 1780 average to 1880: 5.05% below 1980.
        QVERIFY(!RunConditionRule::pairProblem(at(1980, 1780), at(1980, 1980)).isEmpty());
        QVERIFY(RunConditionRule::pairProblem(at(1980, 1800), at(1980, 1980)).isEmpty());
        RunConditions onlyAfter;
        onlyAfter.clockAfterMhz = 1700;
        QCOMPARE(onlyAfter.clockMhz(), std::optional<double>(1700));
        QVERIFY(!RunConditionRule::pairProblem(onlyAfter, at(1980, 1980)).isEmpty());
    }

    void unknownClocksDecideNothing()
    {
        RunConditions unknown;
        unknown.clocksUnknown = QStringLiteral("NVML could not be loaded");
        QVERIFY(RunConditionRule::pairProblem(unknown, at(1980, 1980)).isEmpty());
        QVERIFY(RunConditionRule::pairProblem(unknown, unknown).isEmpty());
    }

    void aStoppedSideThatComputedIsNamed()
    {
        RunConditions b = at(1980, 1980);
        b.frozenBusy.push_back({4242, 37});
        const QString why = RunConditionRule::pairProblem(b, at(1980, 1980));
        QVERIFY2(why.contains(QStringLiteral("candidate's stopped processes")) &&
                     why.contains(QStringLiteral("4242")) && why.contains(QStringLiteral("37%")),
                 qPrintable(why));
        QVERIFY(RunConditionRule::frozenSideComputed(b, at(1980, 1980)));
        RunConditions c = at(1980, 1980);
        c.frozenBusy.push_back({7, 1});
        QVERIFY(
            RunConditionRule::pairProblem(at(1980, 1980), c).contains(QStringLiteral("baseline's stopped")));
    }

    void onlySamplesAfterTheFirstPeriodCount()
    {
        const qint64 start = 1'000'000'000;
        const qint64 end = start + 600'000;
        const Json processes = Json::array({
            // The stopped side's own last run, in the period that straddles the start: ignored.
            Json{{"pid", 11},
                 {"sm_percent_max", 90},
                 {"mem_percent_max", 40},
                 {"samples", 1},
                 {"last_us", start + 100'000}},
            // A stopped process computing a whole period into the run.
            Json{{"pid", 12},
                 {"sm_percent_max", 8},
                 {"mem_percent_max", 0},
                 {"samples", 3},
                 {"last_us", start + 500'000}},
            // The running side (not stopped): never counted.
            Json{{"pid", 13},
                 {"sm_percent_max", 100},
                 {"mem_percent_max", 50},
                 {"samples", 4},
                 {"last_us", end}},
        });
        const QList<long long> stopped{11, 12};
        const RunConditions c =
            RunConditions::fromProbes(Json{{"known", true}, {"sm_clock_mhz", 1965}},
                                      utilisation(processes, 166'667), stopped, start, end);
        QVERIFY2(c.frozenUnknown.isEmpty(), qPrintable(c.frozenUnknown));
        QCOMPARE(c.frozenBusy.size(), size_t(1));
        QCOMPARE(c.frozenBusy[0].pid, 12LL);
        QCOMPARE(c.frozenBusy[0].smPercent, 8);
        QCOMPARE(c.clockBeforeMhz, std::optional<double>(1965));
        QCOMPARE(c.clockAfterMhz, std::optional<double>(1980));
        QCOMPARE(c.clockReasons, QStringList{QStringLiteral("sw_power_cap")});
        // Without a measured period the longest documented one (1 s) applies: this run is too short.
        const RunConditions unsure =
            RunConditions::fromProbes(Json(), utilisation(processes, Json()), stopped, start, end);
        QVERIFY(unsure.frozenBusy.empty());
        QVERIFY2(unsure.frozenUnknown.contains(QStringLiteral("sample period")),
                 qPrintable(unsure.frozenUnknown));
    }

    void withoutNvmlNothingIsJudged()
    {
        const Json noNvml{{"known", false},
                          {"reason", "NVML could not be loaded (libnvidia-ml.so.1: cannot open)"}};
        const RunConditions c = RunConditions::fromProbes(noNvml, noNvml, {11}, 0, 5'000'000);
        QVERIFY(!c.clockMhz());
        QVERIFY(c.clocksUnknown.contains(QStringLiteral("NVML")));
        QVERIFY(c.frozenUnknown.contains(QStringLiteral("NVML")));
        QVERIFY(RunConditionRule::pairProblem(c, c).isEmpty());
        const Json j = c.json();
        QVERIFY(j["sm_clock_mhz"][0].is_null());
        QVERIFY(j.contains("clocks_unknown") && j.contains("other_side_unknown"));
    }

    void nothingStoppedIsSaid()
    {
        const RunConditions c =
            RunConditions::fromProbes(Json(), utilisation(Json::array(), 166'667), {}, 0, 5'000'000);
        QVERIFY(c.frozenUnknown.contains(QStringLiteral("no process")));
    }
};

QTEST_GUILESS_MAIN(TestRunConditions)
#include "tst_runconditions.moc"
