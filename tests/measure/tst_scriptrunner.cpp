// SPDX-License-Identifier: Apache-2.0
// Both runners against fake scripts (tests/data/measure/fake_*.py): every way a script can fail
// is a clear error naming the run, and nothing of its process group survives.
#include "base/job.h"
#include "measure/freshscriptrunner.h"
#include "measure/workerscriptrunner.h"
#include "measuretesthelpers.h"
#include "process/processgroup.h"
#include "testlimits.h"

#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace hotkernel;
using namespace hotkernel::test;

class TestScriptRunner : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QTemporaryDir m_workerTmp{workerWritableTemplate()}; // what fake workers write (issue 41)
    QString m_python;
    QString m_pidFile;

    // The runners' own limit where a test is not about it: far beyond a loaded machine's slowest
    // Python start, so that only the tests of the timeout itself ever meet it.
    static constexpr int kNoTimeoutMs = 10 * 60 * 1000;

    ScriptRunnerOptions options(const QString &behaviour, int timeoutMs = kNoTimeoutMs)
    {
        ScriptRunnerOptions o;
        o.python = m_python;
        o.script = QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure/fake_%1.py").arg(behaviour);
        o.timeout = std::chrono::milliseconds(timeoutMs);
        return o;
    }

    // The fake writes its process group (led by the supervisor the runners start it under).
    long long waitForPid()
    {
        long long pid = 0;
        (void)QTest::qWaitFor([&] { return (pid = readPid(m_pidFile)) > 0; }, kEventLimitMs);
        return pid;
    }

    std::shared_ptr<Captured<RunOutcome>> freshRun(const QString &behaviour, int run,
                                                   int timeoutMs = kNoTimeoutMs, Job *job = nullptr)
    {
        auto runner = std::make_shared<FreshScriptRunner>(options(behaviour, timeoutMs));
        runner->setJob(job);
        return capture(keep(runner, runner->run(run)));
    }

    // Keeps the runner alive for as long as its task runs.
    static QCoro::Task<RunOutcome> keep(std::shared_ptr<ScriptRunner> runner, QCoro::Task<RunOutcome> task)
    {
        RunOutcome outcome = co_await std::move(task);
        runner.reset();
        co_return outcome;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        // The system interpreter directly: a pyenv shim adds a slow shell start to every run.
        m_python = QFileInfo::exists(QStringLiteral("/usr/bin/python3"))
                       ? QStringLiteral("/usr/bin/python3")
                       : QStandardPaths::findExecutable(QStringLiteral("python3"));
        QVERIFY2(!m_python.isEmpty(), "python3 is needed to run the fake scripts");
        m_pidFile = m_workerTmp.filePath(QStringLiteral("pid"));
        qputenv("HOTKERNEL_FAKE_PIDFILE", m_pidFile.toUtf8());
        // As on a fresh machine (issue 44): stdout to a pipe is block-buffered, so a fake that
        // forgets to flush hangs here too instead of only where PYTHONUNBUFFERED is not set.
        qunsetenv("PYTHONUNBUFFERED");
    }
    void init() { QFile::remove(m_pidFile); }

    // --- process per run ---
    void freshOk()
    {
        auto r = freshRun(QStringLiteral("ok"), 3);
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY2(r->value, qPrintable(r->error));
        QVERIFY(r->value->line.ok);
        QCOMPARE(r->value->line.run, 3);
        QVERIFY(r->value->line.ms > 0.03 && r->value->line.ms < 0.04);
    }

    void freshFailures_data()
    {
        QTest::addColumn<QString>("behaviour");
        QTest::addColumn<QString>("expected");
        QTest::newRow("non-zero exit") << QStringLiteral("exit") << QStringLiteral("exited with code 3");
        QTest::newRow("no line") << QStringLiteral("noline") << QStringLiteral("printed no JSON line");
        QTest::newRow("malformed") << QStringLiteral("malformed") << QStringLiteral("not JSON");
    }
    void freshFailures()
    {
        QFETCH(QString, behaviour);
        QFETCH(QString, expected);
        auto r = freshRun(behaviour, 1);
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY(!r->value);
        QVERIFY2(r->error.startsWith(QStringLiteral("fake_%1.py run 1: ").arg(behaviour)),
                 qPrintable(r->error));
        QVERIFY2(r->error.contains(expected), qPrintable(r->error));
    }

    void freshStderrInError()
    {
        auto r = freshRun(QStringLiteral("exit"), 0);
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY2(r->error.contains(QStringLiteral("Traceback: something broke")), qPrintable(r->error));
    }

    void freshOkFalse()
    {
        auto r = freshRun(QStringLiteral("okfalse"), 0);
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY2(r->value, qPrintable(r->error));
        QVERIFY(!r->value->line.ok);
        QVERIFY(r->value->line.mismatch.contains(QStringLiteral("max abs err")));
    }

    void freshHangKillsGroup()
    {
        auto r = freshRun(QStringLiteral("hang"), 4, 4000);
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY2(r->error.contains(QStringLiteral("fake_hang.py run 4: no result within 4 s")),
                 qPrintable(r->error));
        // On a loaded machine the 4 s can end before the script wrote its pid; then it never ran
        // far enough to leave anything behind.
        if (const long long group = readPid(m_pidFile); group > 0)
            QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
    }

    void freshCancelKillsGroup()
    {
        Job job(1, QStringLiteral("bench"), Json::object(), QStringLiteral("test"));
        auto r = freshRun(QStringLiteral("hang"), 0, kNoTimeoutMs, &job);
        const long long group = waitForPid();
        QVERIFY(group > 0);
        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY2(r->value && r->value->cancelled, qPrintable(r->error));
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
    }

    // --- one worker per script ---
    void workerServesRuns()
    {
        WorkerScriptRunner worker(options(QStringLiteral("ok")));
        worker.start();
        auto ready = capture(worker.waitReady());
        QTRY_VERIFY_WITH_TIMEOUT(ready->done, kEventLimitMs);
        QVERIFY2(ready->value && *ready->value, qPrintable(ready->error));
        QCOMPARE(stringField(worker.readyLine(), "event"), QStringLiteral("ready"));
        const long long group = worker.processGroup();
        QVERIFY(group > 0);
        for (int run : {5, 0, 7}) {
            auto r = capture(worker.run(run));
            QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
            QVERIFY2(r->value, qPrintable(r->error));
            QCOMPARE(r->value->line.run, run);
        }
        QCOMPARE(worker.runsServed(), 3);
        QCOMPARE(worker.processGroup(), group); // one process served every run
        QVERIFY(worker.isAlive());
        worker.stop();
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
        QVERIFY(!worker.isAlive());
    }

    void workerOkFalseKeepsWorker()
    {
        WorkerScriptRunner worker(options(QStringLiteral("okfalse")));
        auto ready = capture(worker.waitReady());
        QTRY_VERIFY_WITH_TIMEOUT(ready->done, kEventLimitMs);
        auto r = capture(worker.run(0));
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY2(r->value, qPrintable(r->error));
        QVERIFY(!r->value->line.ok);
        QVERIFY(worker.isAlive());
    }

    void workerFailures_data()
    {
        QTest::addColumn<QString>("behaviour");
        QTest::addColumn<int>("failingRun");
        QTest::addColumn<int>("timeoutMs");
        QTest::addColumn<QString>("expected");
        QTest::newRow("garbage") << QStringLiteral("garbage") << 0 << kNoTimeoutMs
                                 << QStringLiteral("not JSON");
        QTest::newRow("malformed") << QStringLiteral("malformed") << 0 << kNoTimeoutMs
                                   << QStringLiteral("not JSON");
        QTest::newRow("exit") << QStringLiteral("exit") << 0 << kNoTimeoutMs
                              << QStringLiteral("exited with code 3 during the run");
        QTest::newRow("crash mid-run")
            << QStringLiteral("crash") << 2 << kNoTimeoutMs << QStringLiteral("crashed");
        QTest::newRow("hang") << QStringLiteral("hang") << 0 << 1500
                              << QStringLiteral("no answer from the worker within 1.5 s");
    }
    void workerFailures()
    {
        QFETCH(QString, behaviour);
        QFETCH(int, failingRun);
        QFETCH(int, timeoutMs);
        QFETCH(QString, expected);
        WorkerScriptRunner worker(options(behaviour));
        worker.start();
        auto ready = capture(worker.waitReady());
        QTRY_VERIFY_WITH_TIMEOUT(ready->done, kEventLimitMs);
        QVERIFY2(ready->value, qPrintable(ready->error));
        worker.setTimeout(std::chrono::milliseconds(timeoutMs)); // short for the runs only
        const long long group = worker.processGroup();
        for (int run = 0; run < failingRun; ++run) {
            auto ok = capture(worker.run(run));
            QTRY_VERIFY_WITH_TIMEOUT(ok->done, kEventLimitMs);
            QVERIFY2(ok->value, qPrintable(ok->error));
        }
        auto r = capture(worker.run(failingRun));
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY(!r->value);
        QVERIFY2(r->error.startsWith(QStringLiteral("fake_%1.py run %2: ").arg(behaviour).arg(failingRun)),
                 qPrintable(r->error));
        QVERIFY2(r->error.contains(expected), qPrintable(r->error));
        QVERIFY(!worker.isAlive());
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
        // A dead worker refuses further runs with a message, not a hang.
        auto after = capture(worker.run(failingRun + 1));
        QTRY_VERIFY_WITH_TIMEOUT(after->done, kEventLimitMs);
        QVERIFY(after->error.contains(QStringLiteral("not running")));
    }

    void workerCrashShowsStderr()
    {
        WorkerScriptRunner worker(options(QStringLiteral("crash")));
        auto ready = capture(worker.waitReady());
        QTRY_VERIFY_WITH_TIMEOUT(ready->done, kEventLimitMs);
        for (int run = 0; run < 2; ++run) {
            auto ok = capture(worker.run(run));
            QTRY_VERIFY_WITH_TIMEOUT(ok->done, kEventLimitMs);
        }
        auto r = capture(worker.run(2));
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY2(r->error.contains(QStringLiteral("about to crash")), qPrintable(r->error));
    }

    void workerBadStart_data()
    {
        QTest::addColumn<QString>("behaviour");
        QTest::addColumn<int>("timeoutMs");
        QTest::addColumn<QString>("expected");
        QTest::newRow("garbage instead of ready")
            << QStringLiteral("badready") << kNoTimeoutMs << QStringLiteral("\"ready\"} line was expected");
        QTest::newRow("hangs while starting")
            << QStringLiteral("hangstart") << 1500 << QStringLiteral("not ready within 1.5 s");
        QTest::newRow("exits while starting") << QStringLiteral("startexit") << kNoTimeoutMs
                                              << QStringLiteral("exited with code 5 before it was ready");
    }
    void workerBadStart()
    {
        QFETCH(QString, behaviour);
        QFETCH(int, timeoutMs);
        QFETCH(QString, expected);
        WorkerScriptRunner worker(options(behaviour, timeoutMs));
        worker.start();
        auto ready = capture(worker.waitReady());
        QTRY_VERIFY_WITH_TIMEOUT(ready->done, kEventLimitMs);
        QVERIFY(!ready->value);
        QVERIFY2(ready->error.startsWith(QStringLiteral("fake_%1.py --worker: ").arg(behaviour)),
                 qPrintable(ready->error));
        QVERIFY2(ready->error.contains(expected), qPrintable(ready->error));
        const long long group = worker.processGroup();
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
    }

    void workerCancelKillsGroup()
    {
        Job job(1, QStringLiteral("verify"), Json::object(), QStringLiteral("test"));
        WorkerScriptRunner worker(options(QStringLiteral("hang"), kNoTimeoutMs));
        worker.setJob(&job);
        auto ready = capture(worker.waitReady());
        QTRY_VERIFY_WITH_TIMEOUT(ready->done, kEventLimitMs);
        QVERIFY(ready->value);
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
        ticker.start(10);
        auto r = capture(worker.run(0));
        const long long group = waitForPid();
        QCOMPARE(group, worker.processGroup());
        QVERIFY(processGroupAlive(group));
        // The event loop keeps turning while the run is outstanding.
        QTRY_VERIFY_WITH_TIMEOUT(ticks > 3, kEventLimitMs);
        QVERIFY(!r->done);
        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY2(r->value && r->value->cancelled, qPrintable(r->error));
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
    }
};

QTEST_GUILESS_MAIN(TestScriptRunner)
#include "tst_scriptrunner.moc"
