// SPDX-License-Identifier: Apache-2.0
// The GPU witness of a remote worker (issue 24 on issue 19): the remote supervisor hotkernel ships, run with
// --stream-trace, sends what the tracer wrote ahead of each line of the worker's stdout, marked with
// a token the worker never sees; WorkerScriptRunner feeds it to the run's witness. Here "the host"
// is this machine through `sh -c` (the transport is tst_remotessh's business): the supervisor, the
// worker runner and the witness parser are the real ones, the worker a fake that writes the
// tracer's lines itself (tests/data/measure/fake_witnessed.py).
#include "measure/measuretesthelpers.h"
#include "measure/workerscriptrunner.h"
#include "remote/remoteshell.h"
#include "testlimits.h"
#include "thismachineshell.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;
using namespace hotkernel::test;

class TestTraceStream : public QObject
{
    Q_OBJECT

    QTemporaryDir m_root;
    std::shared_ptr<ThisMachineShell> m_shell;

    ScriptRunnerOptions options(const QString &behaviour) const
    {
        ScriptRunnerOptions o;
        o.python = QStringLiteral("python3");
        o.script = QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure/fake_%1.py").arg(behaviour);
        o.workingDirectory = m_root.path();
        o.timeout = std::chrono::minutes(5);
        o.remote = m_shell;
        // Any path: the fake writes the tracer's lines itself. Set, it turns the stream on.
        o.witnessTracer = QStringLiteral("/nonexistent/libhotkernel_tracer.so");
        return o;
    }

    // The worker's outcomes for runs; fewer, and *error saying why, when one failed.
    static std::vector<RunOutcome> serve(WorkerScriptRunner &worker, const std::vector<int> &runs,
                                         QString *error)
    {
        std::vector<RunOutcome> outcomes;
        worker.start();
        auto ready = capture(worker.waitReady());
        if (!QTest::qWaitFor([&] { return ready->done; }, kEventLimitMs) || !ready->value || !*ready->value) {
            *error = QStringLiteral("not ready: ") + ready->error;
            return outcomes;
        }
        for (int run : runs) {
            auto r = capture(worker.run(run));
            if (!QTest::qWaitFor([&] { return r->done; }, kEventLimitMs) || !r->value) {
                *error = QStringLiteral("run %1: ").arg(run) + r->error;
                return outcomes;
            }
            outcomes.push_back(*r->value);
        }
        worker.stop();
        return outcomes;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_root.isValid());
        QVERIFY(QDir(m_root.path()).mkpath(QStringLiteral(".hotkernel")));
        QVERIFY(QFile::copy(
            QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/remote/hotkernel-remote-supervise.py"),
            m_root.filePath(QStringLiteral(".hotkernel/hotkernel-remote-supervise.py"))));
        m_shell = std::make_shared<ThisMachineShell>(m_root.path(), QStringLiteral("python3"));
    }

    void eachRunGetsItsWindow()
    {
        WorkerScriptRunner worker(options(QStringLiteral("witnessed")));
        QString error;
        const std::vector<RunOutcome> outcomes = serve(worker, {3, 4, 5}, &error);
        QVERIFY2(outcomes.size() == 3, qPrintable(error));
        for (size_t i = 0; i < outcomes.size(); ++i) {
            const RunOutcome &o = outcomes[i];
            QVERIFY(o.witnessed);
            // Exactly the run's own window: two kernels of 1000 + run ns, closed, none forged.
            QCOMPARE(o.witness.size(), size_t(1));
            const WitnessWindow &w = o.witness.front();
            QVERIFY(w.complete);
            QVERIFY(!w.forged);
            // Numbered across the three runs' reads: no gap, no repeat (issue 41).
            QVERIFY(w.sequenced);
            QVERIFY2(w.fault.isEmpty(), qPrintable(w.fault));
            QCOMPARE(w.kernels, 2);
            QCOMPARE(w.announced, 2);
            QCOMPARE(w.busyNs, 2 * (1000 + o.line.run));
        }
        // The supervisor removed its trace file when the worker ended, with the worker's scratch
        // it lay in (issue 41: the one place the confined tracer may write).
        QTRY_VERIFY_WITH_TIMEOUT(QDir(m_root.filePath(QStringLiteral(".hotkernel")))
                                     .entryList({QStringLiteral("witness-*"), QStringLiteral("worker-*")},
                                                QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)
                                     .isEmpty(),
                                 kEventLimitMs);
    }

    void aWorkerCannotForgeTheStream()
    {
        // The worker prints a trace line of its own: without the supervisor's token it counts for
        // nothing but a forged window, which the witness check turns into a verdict of invalid.
        WorkerScriptRunner worker(options(QStringLiteral("forgedtrace")));
        QString error;
        const std::vector<RunOutcome> outcomes = serve(worker, {1}, &error);
        QVERIFY2(outcomes.size() == 1, qPrintable(error));
        const RunOutcome &o = outcomes.front();
        QCOMPARE(o.line.run, 1); // the forged line was not taken for the result line either
        QCOMPARE(o.witness.size(), size_t(1));
        QVERIFY(o.witness.front().forged);
        Json line = o.line.json;
        line["witness_replays"] = 1;
        const QString why = WitnessTrace::violation(o.witness, line);
        QVERIFY2(why.contains(QStringLiteral("forged")), qPrintable(why));
        // Its supervisor has removed the worker's scratch before the test's folder goes.
        QTRY_VERIFY_WITH_TIMEOUT(QDir(m_root.filePath(QStringLiteral(".hotkernel")))
                                     .entryList({QStringLiteral("worker-*")}, QDir::Dirs)
                                     .isEmpty(),
                                 kEventLimitMs);
    }
};

QTEST_GUILESS_MAIN(TestTraceStream)
#include "tst_tracestream.moc"
