// SPDX-License-Identifier: Apache-2.0
// The worker pool keeps a worker while its inputs are unchanged and replaces it when they change;
// the device lock admits one timing job per GPU across processes.
#include "base/job.h"
#include "measure/devicelock.h"
#include "measure/workerpool.h"
#include "measure/workerscriptrunner.h"
#include "measuretesthelpers.h"
#include "process/processgroup.h"
#include "testlimits.h"
#include "workercall.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace hotkernel;
using namespace hotkernel::test;

class TestWorkerPool : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_python;

    QString copyFake(const QString &name)
    {
        const QString dir = QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure/");
        for (const QString &f : {QStringLiteral("fakecontract.py"), QStringLiteral("fake_ok.py")}) {
            QFile::remove(m_tmp.filePath(f == QLatin1String("fake_ok.py") ? name : f));
            if (!QFile::copy(dir + f, m_tmp.filePath(f == QLatin1String("fake_ok.py") ? name : f)))
                return {};
        }
        return m_tmp.filePath(name);
    }

    ScriptRunnerOptions options(const QString &script)
    {
        ScriptRunnerOptions o;
        o.python = m_python;
        o.script = script;
        o.timeout = std::chrono::minutes(10); // far beyond a loaded machine's slowest start
        return o;
    }

    bool becomesReady(WorkerScriptRunner &w)
    {
        auto ready = capture(w.waitReady());
        (void)QTest::qWaitFor([&] { return ready->done; }, kEventLimitMs);
        return ready->value && *ready->value;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_python = QFileInfo::exists(QStringLiteral("/usr/bin/python3"))
                       ? QStringLiteral("/usr/bin/python3")
                       : QStandardPaths::findExecutable(QStringLiteral("python3"));
        QVERIFY(!m_python.isEmpty());
        qputenv("HOTKERNEL_LOCK_DIR", m_tmp.path().toUtf8());
    }

    void keyFollowsContent()
    {
        const QString script = copyFake(QStringLiteral("fake_ok.py"));
        QVERIFY(!script.isEmpty());
        const QByteArray k1 = WorkerPool::contentKey(script, m_python, QStringLiteral("2.11"));
        QCOMPARE(WorkerPool::contentKey(script, m_python, QStringLiteral("2.11")), k1);
        QVERIFY(WorkerPool::contentKey(script, m_python, QStringLiteral("2.10")) !=
                k1); // interpreter identity
        QVERIFY(WorkerPool::contentKey(script, QStringLiteral("/other/python"), QStringLiteral("2.11")) !=
                k1);
        // The module it imports (fakecontract, as a candidate imports its baseline) is part of the key.
        QFile f(m_tmp.filePath(QStringLiteral("fakecontract.py")));
        QVERIFY(f.open(QIODevice::Append));
        f.write("\n# changed\n");
        f.close();
        QVERIFY(WorkerPool::contentKey(script, m_python, QStringLiteral("2.11")) != k1);
    }

    void reusesUntilTheFileChanges()
    {
        const QString script = copyFake(QStringLiteral("fake_ok.py"));
        WorkerPool pool;
        WorkerLease first = judgedAcquire(pool, QStringLiteral("baseline"), options(script));
        QVERIFY(!first.reused);
        QVERIFY(becomesReady(*first.runner));
        const long long group = first.runner->processGroup();
        auto firstRunner = first.runner;
        first = {};
        firstRunner.reset();

        WorkerLease second = judgedAcquire(pool, QStringLiteral("baseline"), options(script));
        QVERIFY(second.reused);
        QCOMPARE(second.runner->processGroup(), group);

        // Same file in the other role: never the same process.
        WorkerLease candidate = judgedAcquire(pool, QStringLiteral("candidate"), options(script));
        QVERIFY(!candidate.reused);
        QVERIFY(becomesReady(*candidate.runner));
        QVERIFY(candidate.runner->processGroup() != group);
        QCOMPARE(pool.size(), 2);
        second = {};
        candidate = {};

        QFile f(script);
        QVERIFY(f.open(QIODevice::Append));
        f.write("\n# edited\n");
        f.close();
        WorkerLease third = judgedAcquire(pool, QStringLiteral("baseline"), options(script));
        QVERIFY(!third.reused);
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs); // the stale worker is gone
        QVERIFY(becomesReady(*third.runner));
        const long long newGroup = third.runner->processGroup();
        third = {};
        pool.clear();
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(newGroup), kEventLimitMs);
    }

    // The "sources" a worker reports decide reuse with the key: a file still holding the bytes it
    // was reported with keeps the worker; one the worker could not vouch for (null), or a field
    // that is not a map of path to hash, replaces it.
    void reportedSourcesDecideReuse_data()
    {
        QTest::addColumn<QByteArray>("sources");
        QTest::addColumn<bool>("reused");
        QTest::addColumn<QString>("why");
        QTest::newRow("unchanged") << QByteArray("{\"FILE\": \"SHA\"}") << true << QString();
        QTest::newRow("other hash") << QByteArray("{\"FILE\": \"00\"}") << false << QStringLiteral("changed");
        QTest::newRow("cannot vouch")
            << QByteArray("{\"FILE\": null}") << false << QStringLiteral("changed after the worker started");
        QTest::newRow("not a map") << QByteArray("[\"FILE\"]") << false << QStringLiteral("not an object");
        QTest::newRow("bad hash") << QByteArray("{\"FILE\": 3}") << false
                                  << QStringLiteral("neither a string nor null");
    }

    void reportedSourcesDecideReuse()
    {
        QFETCH(QByteArray, sources);
        QFETCH(bool, reused);
        QFETCH(QString, why);
        const QString script = copyFake(QStringLiteral("fake_ok.py"));
        const QString module = m_tmp.filePath(QStringLiteral("fakecontract.py"));
        QFile f(module);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray sha = QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
        qputenv("HOTKERNEL_FAKE_SOURCES", sources.replace("FILE", module.toUtf8()).replace("SHA", sha));
        WorkerPool pool;
        WorkerLease first = judgedAcquire(pool, QStringLiteral("baseline"), options(script));
        const bool ready = becomesReady(*first.runner);
        qunsetenv("HOTKERNEL_FAKE_SOURCES");
        QVERIFY(ready);
        const QString stale =
            WorkerScriptRunner::staleSource(first.runner->sources(), first.runner->sourcesBroken());
        QCOMPARE(stale.isEmpty(), reused);
        QVERIFY2(stale.contains(why), qPrintable(stale));
        first = {};
        WorkerLease second = judgedAcquire(pool, QStringLiteral("baseline"), options(script));
        QCOMPARE(second.reused, reused);
    }

    // Issue 39: acquire() reads no file on the session's thread; a kept worker whose sources were
    // not judged on the thread pool (judgeReuse) for this call is not reused, and a judged one is.
    void reuseNeedsAJudgement()
    {
        const QString script = copyFake(QStringLiteral("fake_ok.py"));
        WorkerPool pool;
        WorkerLease first = judgedAcquire(pool, QStringLiteral("baseline"), options(script));
        QVERIFY(becomesReady(*first.runner));
        first = {};
        const QByteArray key = WorkerPool::contentKey(script, m_python, {});
        WorkerLease unjudged = pool.acquire(QStringLiteral("baseline"), options(script), key);
        QVERIFY(!unjudged.reused);
        QVERIFY(becomesReady(*unjudged.runner));
        unjudged = {};
        WorkerLease judged = judgedAcquire(pool, QStringLiteral("baseline"), options(script));
        QVERIFY(judged.reused);
        // One judgement serves one acquire: the next call is judged again.
        judged = {};
        WorkerLease again = pool.acquire(QStringLiteral("baseline"), options(script), key);
        QVERIFY(!again.reused);
    }

    void deadWorkerIsReplaced()
    {
        const QString script = copyFake(QStringLiteral("fake_ok.py"));
        WorkerPool pool;
        WorkerLease lease = judgedAcquire(pool, QStringLiteral("baseline"), options(script));
        QVERIFY(becomesReady(*lease.runner));
        const long long group = lease.runner->processGroup();
        killProcessGroup(group);
        QTRY_VERIFY_WITH_TIMEOUT(!lease.runner->isAlive(), kEventLimitMs);
        lease = {};
        WorkerLease again = judgedAcquire(pool, QStringLiteral("baseline"), options(script));
        QVERIFY(!again.reused);
        QVERIFY(becomesReady(*again.runner));
        QVERIFY(again.runner->processGroup() != group);
    }

    void deviceLockExcludes()
    {
        DeviceLock a;
        DeviceLock b;
        QVERIFY(a.tryAcquire(3));
        QVERIFY(QFile::exists(DeviceLock::lockPath(3)));
        QVERIFY(!b.tryAcquire(3)); // another open file description: what another process sees
        QVERIFY(b.tryAcquire(4));  // other devices are independent
        b.release();

        Job job(1, QStringLiteral("verify"), Json::object(), QStringLiteral("test"));
        QStringList waits;
        auto got = capture(b.acquire(
            3, &job, [&waits](const QString &m) { waits.append(m); }, std::chrono::milliseconds(20)));
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
        ticker.start(5);
        QTRY_VERIFY_WITH_TIMEOUT(ticks > 5, kEventLimitMs); // waiting does not block the thread
        QVERIFY(!got->done);
        QCOMPARE(waits.size(), 1);
        QVERIFY(waits.first().contains(QStringLiteral("another hotkernel process")));
        a.release();
        QTRY_VERIFY_WITH_TIMEOUT(got->done, kEventLimitMs);
        QVERIFY(got->value && *got->value);
        QVERIFY(b.isHeld());
        QVERIFY(!a.tryAcquire(3));
    }

    void deviceLockWaitIsCancellable()
    {
        DeviceLock holder;
        QVERIFY(holder.tryAcquire(5));
        DeviceLock waiter;
        Job job(2, QStringLiteral("bench"), Json::object(), QStringLiteral("test"));
        auto got = capture(waiter.acquire(5, &job, {}, std::chrono::milliseconds(20)));
        QTest::qWait(60);
        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(got->done, kEventLimitMs);
        QVERIFY(got->value && !*got->value);
        QVERIFY(!waiter.isHeld());
    }

    void deviceFromEnvironment()
    {
        qputenv("CUDA_VISIBLE_DEVICES", "2,3");
        QCOMPARE(DeviceLock::currentDevice(), 2);
        qputenv("CUDA_VISIBLE_DEVICES", "GPU-uuid");
        QCOMPARE(DeviceLock::currentDevice(), 0);
        qunsetenv("CUDA_VISIBLE_DEVICES");
        QCOMPARE(DeviceLock::currentDevice(), 0);
    }
};

QTEST_GUILESS_MAIN(TestWorkerPool)
#include "tst_workerpool.moc"
