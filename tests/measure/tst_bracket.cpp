// SPDX-License-Identifier: Apache-2.0
// Protocol 5's bracket (issue 41): the core's clock around a run's timed replays. The events come
// as the contract prints them (resources/contract/_hotkernel_contract.py, _Bracket); the bounds
// are PairChecks::bracketed's.
#include "measure/bracketclock.h"
#include "measure/pairchecks.h"

#include <QTest>
#include <QThread>

using namespace hotkernel;

namespace {

// A CPU run (no witness) that reports `samplesMs` per call for blocks of 10 calls, bracketed for
// `bracketMs` by the core's clock.
RunOutcome cpuRun(std::vector<double> samplesMs, double bracketMs)
{
    RunOutcome o;
    o.line.ok = true;
    o.line.samplesMs = samplesMs;
    o.line.json = Json{{"device", "cpu"}, {"iters", 10}, {"samples_ms", samplesMs}};
    o.bracketSeconds = bracketMs / 1e3;
    return o;
}

} // namespace

class TestBracket : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void armedGetsGoAndDoneStopsTheClock()
    {
        BracketClock clock(3);
        QVERIFY(!clock.take(R"({"protocol": 5, "ok": true, "ms": 1.0, "run": 3})"));
        QVERIFY(!clock.take(R"({"event": "judge_seed", "run": 3})"));
        const std::optional<QByteArray> go = clock.take(R"({"event": "armed", "run": 3})");
        QVERIFY(go);
        QCOMPARE(*go, QByteArray("{\"op\": \"go\", \"run\": 3}\n"));
        QCOMPARE(clock.seconds(), -1.0);
        QThread::msleep(20);
        const std::optional<QByteArray> done = clock.take(R"({"event": "done", "run": 3})");
        QVERIFY(done && done->isEmpty());
        QVERIFY2(clock.seconds() >= 0.019 && clock.seconds() < 5,
                 qPrintable(QString::number(clock.seconds())));
        QVERIFY(clock.fault().isEmpty());
    }

    void eventsOutOfOrderAreFaults_data()
    {
        QTest::addColumn<QByteArrayList>("lines");
        QTest::addColumn<QString>("fault");
        QTest::newRow("done first") << QByteArrayList{R"({"event": "done", "run": 1})"}
                                    << QStringLiteral("done before it was armed");
        QTest::newRow("armed twice") << QByteArrayList{R"({"event": "armed", "run": 1})",
                                                       R"({"event": "armed", "run": 1})"}
                                     << QStringLiteral("armed twice");
        QTest::newRow("done twice") << QByteArrayList{R"({"event": "armed", "run": 1})",
                                                      R"({"event": "done", "run": 1})",
                                                      R"({"event": "done", "run": 1})"}
                                    << QStringLiteral("done twice");
        QTest::newRow("another run") << QByteArrayList{R"({"event": "armed", "run": 0})"}
                                     << QStringLiteral("another run");
    }

    void eventsOutOfOrderAreFaults()
    {
        QFETCH(QByteArrayList, lines);
        QFETCH(QString, fault);
        BracketClock clock(1);
        for (const QByteArray &line : lines)
            QVERIFY(clock.take(line)); // taken, never passed on as the run's answer
        QVERIFY2(clock.fault().contains(fault), qPrintable(clock.fault()));
        QCOMPARE(clock.seconds(), -1.0); // a broken bracket bounds nothing
        RunOutcome o = cpuRun({1.0, 1.0}, 25);
        o.bracketFault = clock.fault();
        QVERIFY(PairChecks::bracketed(o, QStringLiteral("candidate"), 1).contains(fault));
    }

    void honestTotalsPass()
    {
        // 5 replays of 10 calls at 1.2 ms: 60 ms of replays in a 70 ms bracket.
        QCOMPARE(PairChecks::bracketed(cpuRun({1.2, 1.2, 1.2, 1.2, 1.2}, 70), QStringLiteral("baseline"), 2),
                 QString());
    }

    void scaledTimesAreRefused()
    {
        // 100 blocks (the contract's most) reported at 20 ms in a 70 ms bracket.
        const QString why =
            PairChecks::bracketed(cpuRun(std::vector<double>(100, 0.02), 70), QStringLiteral("candidate"), 2);
        QVERIFY2(why.contains(QStringLiteral("not the time its replays took")) &&
                     why.contains(QStringLiteral("candidate's run 2")),
                 qPrintable(why));
    }

    void moreThanTheBracketIsRefused()
    {
        // A baseline claiming 80 ms for replays the core saw take 70 ms.
        const QString why =
            PairChecks::bracketed(cpuRun({1.6, 1.6, 1.6, 1.6, 1.6}, 70), QStringLiteral("baseline"), 0);
        QVERIFY2(why.contains(QStringLiteral("reports more than it took")), qPrintable(why));
    }

    void aShortBracketIsNotHeldFromBelow()
    {
        // 30 ms on a CPU: a late wake-up could be most of it, so a low total says nothing.
        QCOMPARE(PairChecks::bracketed(cpuRun(std::vector<double>(100, 0.005), 30),
                                       QStringLiteral("candidate"), 1),
                 QString());
        // ...but a total above it still is refused.
        QVERIFY(!PairChecks::bracketed(cpuRun({2.0, 2.0}, 30), QStringLiteral("candidate"), 1).isEmpty());
    }

    // The contract times a CPU block until its replays last 60 ms or it has made 100 of them: fewer
    // samples adding up to less were not the ones it timed, whatever the bracket.
    void cpuSamplesShortOfTheContractsAreRefused()
    {
        const QString why =
            PairChecks::bracketed(cpuRun({0.4, 0.4, 0.4, 0.4, 0.4}, 25), QStringLiteral("candidate"), 3);
        QVERIFY2(why.contains(QStringLiteral("reports samples other than the ones it timed")),
                 qPrintable(why));
    }

    // A GPU run without a witness (no tracer) has nothing its bracket (around the judged replay)
    // could be held against: the reported timed samples are another stretch of time.
    void aGpuRunWithoutWitnessIsNotHeldToTheBracket()
    {
        RunOutcome o = cpuRun({0.035, 0.035, 0.035, 0.035, 0.035}, 21);
        o.line.json["device"] = "cuda";
        QCOMPARE(PairChecks::bracketed(o, QStringLiteral("candidate"), 1), QString());
    }

    void anUnbracketedRunIsRefused()
    {
        const QString why = PairChecks::bracketed(cpuRun({0.4}, -1e3), QStringLiteral("candidate"), 4);
        QVERIFY2(why.contains(QStringLiteral("never said its bracketed replays were armed and done")),
                 qPrintable(why));
        // A run that failed its own check is judged by that failure, not by its time.
        RunOutcome failed = cpuRun({0.4}, -1e3);
        failed.line.ok = false;
        QCOMPARE(PairChecks::bracketed(failed, QStringLiteral("candidate"), 4), QString());
    }
};

QTEST_GUILESS_MAIN(TestBracket)
#include "tst_bracket.moc"
