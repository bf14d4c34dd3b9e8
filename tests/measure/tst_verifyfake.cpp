// SPDX-License-Identifier: Apache-2.0
// verify's pairing, verdicts and worker handling on fake scripts (tests/data/measure/fake_*.py),
// whose timings are known: fake_slow is 10% slower than fake_ok on the same per-run noise.
// The Session still looks for a Python with torch (its interpreter rule), hence HOTKERNEL_PYTHON.
#include "measure/measuresetup.h"
#include "measure/workerpool.h"
#include "measuretesthelpers.h"
#include "process/processancestry.h"
#include "process/processgroup.h"
#include "process/treefreeze.h"
#include "session/session.h"
#include "testlimits.h"
#include "tools/builtintools.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace hotkernel;
using namespace hotkernel::test;

class TestVerifyFake : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QTemporaryDir m_workerTmp{workerWritableTemplate()}; // what fake workers write (issue 41)
    std::unique_ptr<Session> m_session;

    ToolResult call(const QString &tool, const Json &args)
    {
        auto r = capture(m_session->call(tool, args, QStringLiteral("test")));
        (void)QTest::qWaitFor([&] { return r->done; }, kEventLimitMs);
        return r->value ? *r->value : ToolResult::error(QStringLiteral("did not finish: ") + r->error);
    }
    static std::string fake(const char *behaviour) { return std::string("fake_") + behaviour + ".py"; }
    ToolResult verify(const char *b, const char *c, Json extra = Json::object())
    {
        Json args{{"baseline", fake(b)}, {"candidate", fake(c)}};
        args.update(extra);
        return call(QStringLiteral("verify"), args);
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString python = qEnvironmentVariable("HOTKERNEL_PYTHON", QStringLiteral("/usr/bin/python3"));
        if (QProcess::execute(python, {QStringLiteral("-c"), QStringLiteral("import torch")}) != 0)
            QSKIP("no Python with torch for the Session's interpreter rule (set HOTKERNEL_PYTHON)");
        QVERIFY(m_tmp.isValid());
        qputenv("HOTKERNEL_LOCK_DIR", m_tmp.path().toUtf8());
        qputenv("HOTKERNEL_FAKE_PIDFILE", m_workerTmp.filePath(QStringLiteral("pid")).toUtf8());
        const QString shipped = MeasureSetup::shippedContractSha256();
        QCOMPARE(shipped.size(), 64); // the contract is compiled in as a resource
        qputenv("HOTKERNEL_FAKE_CONTRACT_SHA256", shipped.toUtf8());
        SessionOptions options;
        options.workDir = QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure");
        m_session = std::make_unique<Session>(builtinTools(), options);
    }

    void slowerAdaptive()
    {
        Job *job = m_session->start(QStringLiteral("verify"),
                                    Json{{"baseline", fake("ok")}, {"candidate", fake("slow")}},
                                    QStringLiteral("test"));
        QList<double> progress;
        connect(job, &Job::progressChanged, this,
                [&progress](double done, std::optional<double>, const QString &) { progress.append(done); });
        QTRY_VERIFY_WITH_TIMEOUT(job->state() != Job::State::Running, kEventLimitMs);
        const ToolResult &r = job->result();
        QVERIFY2(!r.isError, qPrintable(r.text));
        const Json &s = r.structured;
        QCOMPARE(s["verdict"].get<std::string>(), std::string("slower"));
        // The estimate for a slower verdict too (issue 45), inside its interval.
        QVERIFY(std::fabs(s["speedup"].get<double>() - 1.0 / 1.10) < 0.01);
        QVERIFY(s["speedup_ci99"][0].get<double>() < s["speedup"].get<double>());
        QVERIFY(s["speedup_ci99"][1].get<double>() < 1.0);
        QVERIFY(std::fabs(s["candidate_stats"]["mean_ms"].get<double>() /
                              s["baseline_stats"]["mean_ms"].get<double>() -
                          1.10) < 0.01);
        // 0.3% noise: the 99% interval is within +-1% at the 5-pair minimum.
        QCOMPARE(s["n"].get<int>(), 5);
        QCOMPARE(s["adaptive"].get<bool>(), true);
        QCOMPARE(s["mode"].get<std::string>(), std::string("warm"));
        QVERIFY(progress.contains(12.0)); // every run of the 6 pairs reported
        QVERIFY(r.text.contains(QStringLiteral("SLOWER")));
        QVERIFY2(r.text.contains(QStringLiteral("speedup:  0.9")), qPrintable(r.text));
    }

    void fasterIsTheMirror()
    {
        const ToolResult r = verify("slow", "ok", Json{{"n", 4}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        QCOMPARE(r.structured["verdict"].get<std::string>(), std::string("faster"));
        QVERIFY(std::fabs(r.structured["speedup"].get<double>() - 1.10) < 0.01);
        QCOMPARE(r.structured["n"].get<int>(), 4);
        QCOMPARE(r.structured["adaptive"].get<bool>(), false);
        // fake_slow was the candidate before: as a baseline it is another role, another worker.
        QCOMPARE(r.structured["workers_reused"]["baseline"].get<bool>(), false);
        QCOMPARE(r.structured["workers_reused"]["candidate"].get<bool>(), false);
        // Issue 41: each side's worker stood still during every run of the other (5 pairs, plus any
        // pair a busy machine made measure again), but the candidate during the baseline's warm-up
        // run, which overlaps its start.
        int measuredAgain = 0;
        for (const Json &w : r.structured["warnings"])
            measuredAgain += toQt(w.get<std::string>()).contains(QStringLiteral("was measured again"));
        const int runs = 5 + measuredAgain;
        const Json &frozen = r.structured["frozen"];
        QCOMPARE(frozen["baseline"]["other_side_runs"].get<int>(), runs);
        QCOMPARE(frozen["baseline"]["frozen_runs"].get<int>(), runs);
        QCOMPARE(frozen["candidate"]["other_side_runs"].get<int>(), runs);
        QCOMPARE(frozen["candidate"]["frozen_runs"].get<int>(), runs - 1);
        QCOMPARE(frozen["candidate"]["not_frozen"].size(), size_t(1));
        for (const char *side : {"baseline", "candidate"}) {
            QVERIFY(frozen[side]["processes_max"].get<int>() >= 1); // the worker, below its supervisor
            QCOMPARE(frozen[side]["unconfirmed"].get<int>(), 0);
        }
        // A CPU target: the card is not read, and the result says why.
        QCOMPARE(r.structured["run_conditions"]["card_read"].get<bool>(), false);
        QVERIFY(r.structured["run_conditions"]["why_not"].is_string());
        QCOMPARE(r.structured["run_conditions"]["dropped_pairs"].get<int>(), 0);
        QVERIFY2(
            r.text.contains(QStringLiteral("frozen:   baseline stopped in %1 of %1 runs of the other side; "
                                           "candidate stopped in %2 of %1")
                                .arg(runs)
                                .arg(runs - 1)),
            qPrintable(r.text));
        for (const Json &w : r.structured["warnings"])
            QVERIFY2(!toQt(w.get<std::string>()).contains(QStringLiteral("not stopped")), w.dump().c_str());
    }

    void sameScriptIsInconclusiveAndReused()
    {
        const ToolResult first = verify("ok", "ok", Json{{"rule", "seed"}});
        QVERIFY2(!first.isError, qPrintable(first.text));
        QCOMPARE(first.structured["verdict"].get<std::string>(), std::string("inconclusive"));
        QCOMPARE(first.structured["rule"].get<std::string>(), std::string("seed"));
        QCOMPARE(first.structured["workers_reused"]["baseline"].get<bool>(), true); // from slowerAdaptive
        const ToolResult second = verify("ok", "ok");
        QCOMPARE(second.structured["workers_reused"]["candidate"].get<bool>(), true);
    }

    void incorrectAndInvalid()
    {
        const ToolResult incorrect = verify("ok", "okfalse", Json{{"n", 3}});
        QVERIFY2(!incorrect.isError, qPrintable(incorrect.text));
        QCOMPARE(incorrect.structured["verdict"].get<std::string>(), std::string("incorrect"));
        QCOMPARE(incorrect.structured["failed_runs"][0]["run"].get<int>(), 0);
        QVERIFY(incorrect.structured["speedup_ci99"].is_null());

        const ToolResult invalid = verify("ok", "shape", Json{{"n", 3}});
        QCOMPARE(invalid.structured["verdict"].get<std::string>(), std::string("invalid"));
        QVERIFY(toQt(invalid.structured["mismatches"][0].get<std::string>())
                    .startsWith(QStringLiteral("shape: baseline [4,8], candidate [4,16]")));

        const ToolResult baselineFails = verify("okfalse", "ok", Json{{"n", 3}});
        QCOMPARE(baselineFails.structured["verdict"].get<std::string>(), std::string("invalid"));
        QVERIFY(baselineFails.text.contains(QStringLiteral("baseline fails its own")));
    }

    void judgedOutsideTheCandidate()
    {
        // Protocol 4: the candidate's line says ok, the baseline judging its written outputs does not.
        const ToolResult wrong = verify("ok", "judgedwrong", Json{{"n", 3}});
        QVERIFY2(!wrong.isError, qPrintable(wrong.text));
        QCOMPARE(wrong.structured["verdict"].get<std::string>(), std::string("incorrect"));
        QVERIFY2(toQt(wrong.structured["reason"].get<std::string>())
                     .startsWith(QStringLiteral(
                         "the candidate's output does not match the reference, judged by "
                         "the baseline outside the candidate's process (run 0: max abs err 2")),
                 qPrintable(wrong.text));
        QCOMPARE(wrong.structured["failed_runs"][0]["judged_by"].get<std::string>(), std::string("baseline"));
        QVERIFY(wrong.structured["speedup"].is_null());

        const ToolResult missing = verify("ok", "nojudged", Json{{"n", 3}});
        QVERIFY2(!missing.isError, qPrintable(missing.text));
        QCOMPARE(missing.structured["verdict"].get<std::string>(), std::string("invalid"));
        QVERIFY2(toQt(missing.structured["reason"].get<std::string>())
                     .contains(
                         QStringLiteral("left no judged outputs that the judge outside its process can use")),
                 qPrintable(missing.text));
        QVERIFY(
            toQt(missing.structured["reason"].get<std::string>()).contains(QStringLiteral("does not exist")));

        // Every pair of an honest verify is judged, fresh processes too.
        const ToolResult honest = verify("ok", "fast", Json{{"n", 2}, {"warmup", 1}});
        QVERIFY2(honest.structured["verdict"] != Json("invalid") &&
                     honest.structured["verdict"] != Json("incorrect"),
                 qPrintable(honest.text));
        QCOMPARE(honest.structured["outside_judge"]["runs_judged"].get<int>(), 3);
        const ToolResult fresh = verify("ok", "judgedwrong", Json{{"n", 2}, {"warmup", 0}, {"fresh", true}});
        QVERIFY2(!fresh.isError, qPrintable(fresh.text));
        QCOMPARE(fresh.structured["verdict"].get<std::string>(), std::string("incorrect"));
    }

    void otherContractIsInvalid()
    {
        qputenv("HOTKERNEL_FAKE_CONTRACT_SHA256", QByteArray(64, 'c'));
        m_session->workers().clear(); // workers keep the environment they started with
        const ToolResult r = verify("ok", "fast", Json{{"n", 2}});
        qputenv("HOTKERNEL_FAKE_CONTRACT_SHA256", MeasureSetup::shippedContractSha256().toUtf8());
        m_session->workers().clear();
        QVERIFY2(!r.isError, qPrintable(r.text));
        QCOMPARE(r.structured["verdict"].get<std::string>(), std::string("invalid"));
        QVERIFY(toQt(r.structured["mismatches"].dump())
                    .contains(QStringLiteral("differs from the one this hotkernel ships")));
    }

    void oneTimerForBothSides()
    {
        // Issue 19: a candidate that cannot be graph-captured is timed with events; the baseline is
        // then re-timed with events too, and the pair timed with different timers does not count.
        for (const bool fresh : {false, true}) {
            const ToolResult r = verify("h200", "h200nocapture", Json{{"n", 3}, {"fresh", fresh}});
            QVERIFY2(!r.isError, qPrintable(r.text));
            const Json &s = r.structured;
            QCOMPARE(s["verdict"].get<std::string>(), std::string("inconclusive"));
            QCOMPARE(s["timers"]["baseline"].get<std::string>(), std::string("events"));
            QCOMPARE(s["timers"]["candidate"].get<std::string>(), std::string("events"));
            QCOMPARE(s["timers"]["events_for_both_from_run"].get<int>(), 1);
            QCOMPARE(s["contract"]["timer"].get<std::string>(), std::string("events"));
            QCOMPARE(s["baseline_stats"]["n"].get<int>(), 3);
            QVERIFY2(toQt(s["warnings"].dump())
                         .contains(QStringLiteral("the candidate could not be captured in a CUDA graph")),
                     qPrintable(r.text));
        }
        // The next verify of the same (kept) workers starts with the contract's own choice again.
        const ToolResult same = verify("h200", "h200", Json{{"n", 2}});
        QVERIFY2(!same.isError, qPrintable(same.text));
        QCOMPARE(same.structured["timers"]["baseline"].get<std::string>(), std::string("graph"));
        QVERIFY(same.structured["timers"]["events_for_both_from_run"].is_null());

        const ToolResult stubborn = verify("h200graphonly", "h200nocapture", Json{{"n", 2}});
        QVERIFY2(!stubborn.isError, qPrintable(stubborn.text));
        QCOMPARE(stubborn.structured["verdict"].get<std::string>(), std::string("invalid"));
        QVERIFY2(toQt(stubborn.structured["reason"].get<std::string>())
                     .contains(QStringLiteral("were asked for the events timer from run 1 on")),
                 qPrintable(stubborn.text));
        m_session->workers().clear(); // the next test counts the pool's workers
    }

    void belowThePhysicalFloorIsInvalid()
    {
        const ToolResult fine = verify("h200", "h200", Json{{"n", 2}});
        QVERIFY2(!fine.isError, qPrintable(fine.text));
        QVERIFY2(fine.structured["verdict"] == Json("inconclusive"), qPrintable(fine.text));
        QVERIFY(fine.structured["physical_floor"]["applied"] == Json(true));
        QVERIFY(fine.text.contains(QStringLiteral(" per call (memory-bound, ")));

        const ToolResult r = verify("h200", "h200timer", Json{{"n", 2}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        QCOMPARE(r.structured["verdict"].get<std::string>(), std::string("invalid"));
        QVERIFY2(
            toQt(r.structured["reason"].get<std::string>())
                .startsWith(QStringLiteral("the candidate: faster than this card can move these bytes: ")),
            qPrintable(r.text));
        QVERIFY(r.structured["physical_floor"]["checked"]["candidate"]["violated"] == Json(true));
        QVERIFY(r.structured["physical_floor"]["checked"]["baseline"]["violated"] == Json(false));

        const ToolResult bench = call(QStringLiteral("bench"), Json{{"script", fake("h200timer")}, {"n", 2}});
        QVERIFY2(!bench.isError, qPrintable(bench.text));
        QVERIFY(bench.structured["valid"] == Json(false));
        QVERIFY2(bench.text.contains(QStringLiteral("INVALID: the script: faster than this card")),
                 qPrintable(bench.text));
        m_session->workers().clear(); // the next test counts the pool's workers
    }

    void benchOfAnUntrustedRunIsInvalid()
    {
        // The contract marked the run invalid (a patched timer): bench shows no valid time for it.
        const ToolResult bench = call(QStringLiteral("bench"), Json{{"script", fake("untrusted")}, {"n", 2}});
        QVERIFY2(!bench.isError, qPrintable(bench.text));
        QVERIFY(bench.structured["valid"] == Json(false));
        QVERIFY2(
            toQt(bench.structured["invalid_reason"].get<std::string>())
                .startsWith(QStringLiteral("the script's run 0 cannot be trusted: patched during the run")),
            qPrintable(bench.text));
        QVERIFY2(bench.text.contains(QStringLiteral("INVALID: the script's run 0 cannot be trusted")),
                 qPrintable(bench.text));
        const ToolResult honest = call(QStringLiteral("bench"), Json{{"script", fake("ok")}, {"n", 2}});
        QVERIFY(honest.structured["valid"] == Json(true));
        m_session->workers().clear(); // the next test counts the pool's workers
    }

    void crashMidRunIsAnErrorNamingTheRun()
    {
        const ToolResult r = verify("ok", "crash", Json{{"n", 5}});
        QVERIFY(r.isError);
        QVERIFY2(r.text.contains(QStringLiteral("fake_crash.py run 2: the worker crashed")),
                 qPrintable(r.text));
        QCOMPARE(m_session->workers().size(), 1); // the dead candidate left the pool, the baseline stays
        // Issue 41: the baseline, stopped during the candidate's crashing run, runs again.
        const QList<long long> kept = m_session->workers().processGroups();
        QCOMPARE(kept.size(), 1);
        const QList<long long> tree = QList<long long>{kept.first()} + TreeFreeze::below(kept.first());
        QVERIFY(tree.size() >= 2); // the supervisor and the worker
        for (long long pid : tree) {
            const std::optional<QList<QByteArray>> stat = ProcessAncestry::statFields(pid);
            QVERIFY2(stat && !stat->isEmpty() && stat->first() != "T",
                     qPrintable(QStringLiteral("process %1 of the kept baseline is still stopped").arg(pid)));
        }
    }

    void freshMode()
    {
        const ToolResult r = verify("ok", "fast", Json{{"n", 2}, {"warmup", 0}, {"fresh", true}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        QCOMPARE(r.structured["mode"].get<std::string>(), std::string("fresh"));
        QCOMPARE(r.structured["n"].get<int>(), 2);
        // No process stands between fresh runs: nothing to stop, and no warning for it.
        QCOMPARE(r.structured["frozen"]["candidate"]["frozen_runs"].get<int>(), 0);
        QCOMPARE(r.structured["frozen"]["candidate"]["not_frozen"].size(), size_t(1));
        for (const Json &w : r.structured["warnings"])
            QVERIFY2(!toQt(w.get<std::string>()).contains(QStringLiteral("not stopped")), w.dump().c_str());
    }

    // Issue 23: the baseline's warm-up run goes while the candidate is still starting; a measured
    // run never does (with no warm-up pair, the first run waits for both).
    void warmupOverlapsTheCandidatesStart()
    {
        const QString events = m_workerTmp.filePath(QStringLiteral("events"));
        qputenv("HOTKERNEL_FAKE_EVENTS", events.toUtf8());
        const auto order = [&events] {
            QFile f(events);
            const QStringList lines = f.open(QIODevice::ReadOnly)
                                          ? QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'))
                                          : QStringList();
            QFile::remove(events);
            return lines;
        };
        const ToolResult overlapped = verify("startbase", "slowstart", Json{{"n", 2}});
        QVERIFY2(!overlapped.isError, qPrintable(overlapped.text));
        QStringList seen = order();
        QVERIFY2(seen.indexOf(QStringLiteral("startbase run 0")) >= 0 &&
                     seen.indexOf(QStringLiteral("startbase run 0")) <
                         seen.indexOf(QStringLiteral("slowstart ready")),
                 qPrintable(seen.join(QLatin1Char('|'))));
        QVERIFY(seen.indexOf(QStringLiteral("slowstart ready")) <
                seen.indexOf(QStringLiteral("startbase run 1")));
        QVERIFY(overlapped.structured["phases_s"]["workers_ready"].get<double>() >= 1.4); // both, not one

        const ToolResult waited = verify("startbase", "slowstartb", Json{{"n", 2}, {"warmup", 0}});
        QVERIFY2(!waited.isError, qPrintable(waited.text));
        seen = order();
        QVERIFY2(seen.indexOf(QStringLiteral("slowstartb ready")) >= 0 &&
                     seen.indexOf(QStringLiteral("slowstartb ready")) <
                         seen.indexOf(QStringLiteral("startbase run 0")),
                 qPrintable(seen.join(QLatin1Char('|'))));
        qunsetenv("HOTKERNEL_FAKE_EVENTS");
    }

    void benchFake()
    {
        const ToolResult r =
            call(QStringLiteral("bench"), Json{{"script", fake("ok")}, {"n", 4}, {"warmup", 2}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        QCOMPARE(r.structured["stats"]["samples_ms"].size(), size_t(4));
        QCOMPARE(r.structured["runs"][0]["run"].get<int>(), 2); // warm-up runs 0 and 1 dropped
        QVERIFY(std::fabs(r.structured["achieved"]["gbps"].get<double>() -
                          256 / (r.structured["stats"]["mean_ms"].get<double>() * 1e-3) / 1e9) < 1e-9);
        const ToolResult bad = call(QStringLiteral("bench"), Json{{"script", fake("okfalse")}, {"n", 2}});
        QVERIFY(bad.isError);
        QVERIFY2(bad.text.contains(QStringLiteral("fake_okfalse.py run 0: the output check failed")),
                 qPrintable(bad.text));
    }

    void cleanupTestCase()
    {
        if (m_session)
            m_session->workers().clear();
        QTest::qWait(200); // let finished coroutines and deferred deletes run before the Session goes
        m_session.reset();
    }
};

QTEST_GUILESS_MAIN(TestVerifyFake)
#include "tst_verifyfake.moc"
