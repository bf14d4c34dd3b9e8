// SPDX-License-Identifier: Apache-2.0
// Spare workers (issue 23): real CPU-torch interpreters started ahead of need become the next
// worker, and never serve stale code. The edited script, an edited module it imports (the shared
// kernels.py of a baseline and its candidate) and an edited module the spare itself had imported
// before the hand-off (through a sitecustomize) are each measured as they are on disk. Spares end
// with their pool and their number is bounded.
#include "measure/spareworker.h"
#include "measure/workerpool.h"
#include "measure/workerscriptrunner.h"
#include "measuretesthelpers.h"
#include "process/processgroup.h"
#include "testlimits.h"
#include "workercall.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {

const char *const kReference = "def ref(x):\n    return x * 2.0\n";

// fn is x * kernels.SCALE (2.0 matches the reference); an edit to 3.0 must fail the check.
QByteArray targetScript(const QByteArray &body)
{
    return QByteArray(
               "from _hotkernel_contract import Input, Target, main\nimport kernels\n\n\ndef fn(x):\n") +
           body +
           "\n\nTARGET = Target(name=\"spare\", inputs=[Input(\"x\", [64])], dtype=\"fp32\", iters=2,\n"
           "                reference=\"./reference.py:ref\", device=\"cpu\")\n"
           "if __name__ == \"__main__\":\n    main(TARGET, fn)\n";
}

bool write(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

} // namespace

class TestSpareWorkers : public QObject
{
    Q_OBJECT

    QString m_python;

    bool makeFolder(const QTemporaryDir &dir)
    {
        QFile contract(QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/contract/_hotkernel_contract.py"));
        return contract.open(QIODevice::ReadOnly) &&
               write(dir.filePath(QStringLiteral("_hotkernel_contract.py")), contract.readAll()) &&
               write(dir.filePath(QStringLiteral("reference.py")), kReference) &&
               write(dir.filePath(QStringLiteral("kernels.py")), "SCALE = 2.0\n") &&
               write(dir.filePath(QStringLiteral("t_candidate.py")),
                     targetScript("    return x * kernels.SCALE"));
    }

    // One call as verify makes it, then the release refills the spares.
    void call(WorkerPool &pool, const QString &script, WorkerCall *out)
    {
        callWorker(pool, m_python, script, out);
        pool.refillSpares(SpareRecipe{m_python, {}});
    }

    // Waits until the pool has a ready spare; its process group.
    long long readySpare(WorkerPool &pool)
    {
        // A spare that cannot start (the debug log hotkernel.measure has its stderr) fails at once.
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(pool.sparesReady() == 1 || pool.sparesAlive() == 0, kEventLimitMs);
            QVERIFY2(pool.sparesReady() == 1, "the spare worker ended before it was ready");
        }();
        const QList<long long> groups = pool.processGroups();
        return groups.isEmpty() ? 0 : groups.last();
    }

    // A pool with one ready spare that started with site (a sitecustomize's folder) on PYTHONPATH,
    // as a user's environment can have it; its process group.
    long long readySpareWithSite(WorkerPool &pool, const QString &site)
    {
        const QByteArray before = qgetenv("PYTHONPATH");
        qputenv("PYTHONPATH", site.toUtf8());
        pool.setSpareCount(1);
        pool.refillSpares(SpareRecipe{m_python, {}});
        const long long spare = readySpare(pool);
        qputenv("PYTHONPATH", before);
        return spare;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_python = workerPython();
        if (!importsTorch(m_python))
            QSKIP("no Python with torch (HOTKERNEL_PYTHON) on this machine");
    }

    void countIsBounded()
    {
        WorkerPool pool;
        QCOMPARE(pool.spareCount(), 0);
        pool.refillSpares(SpareRecipe{m_python, {}});
        QCOMPARE(pool.sparesAlive(), 0); // none asked for, none started
        pool.setSpareCount(50);
        QCOMPARE(pool.spareCount(), WorkerPool::kMaxSpares);
    }

    void spareBecomesTheNextWorkerAndSeesEveryEdit()
    {
        QTemporaryDir dir;
        QVERIFY(makeFolder(dir));
        const QString script = dir.filePath(QStringLiteral("t_candidate.py"));
        WorkerPool pool;
        pool.setSpareCount(1);
        pool.refillSpares(SpareRecipe{m_python, {}});
        const long long spare = readySpare(pool);
        QVERIFY(spare > 0);

        // The first worker is the spare's process, running the script as `python SCRIPT --worker` would.
        WorkerCall first;
        call(pool, script, &first);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(first.fromSpare);
        QCOMPARE(first.group, spare);
        QVERIFY2(first.ok, qPrintable(first.mismatch));

        // The shared module edited: the kept worker is replaced, by the next spare, which loads the edit.
        QVERIFY(readySpare(pool) > 0);
        QVERIFY(write(dir.filePath(QStringLiteral("kernels.py")), "SCALE = 3.0  # edited\n"));
        WorkerCall second;
        call(pool, script, &second);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(second.fromSpare && !second.reused);
        QVERIFY2(!second.ok, "a spare ran the shared module as it was before the edit");
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(first.group), kEventLimitMs);

        // Edited back, and the script itself edited: again a spare, again the code on disk.
        QVERIFY(readySpare(pool) > 0);
        QVERIFY(write(dir.filePath(QStringLiteral("kernels.py")), "SCALE = 2.0\n"));
        QVERIFY(write(script, targetScript("    return x * kernels.SCALE * 1.5  # edited")));
        WorkerCall third;
        call(pool, script, &third);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(third.fromSpare);
        QVERIFY2(!third.ok, "a spare ran the script as it was before the edit");

        // The spares end with the pool.
        const QList<long long> groups = pool.processGroups();
        QVERIFY(!groups.isEmpty());
        pool.clear();
        for (long long g : groups)
            QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(g), kEventLimitMs);
        QCOMPARE(pool.sparesAlive(), 0);
    }

    void spareThatImportedAnEditedFileIsNotUsed()
    {
        // A sitecustomize on PYTHONPATH makes every interpreter import a user module at start-up,
        // the spare too: edited after the spare started, that spare must not serve.
        QTemporaryDir dir;
        QVERIFY(makeFolder(dir));
        const QString site = dir.filePath(QStringLiteral("site"));
        QVERIFY(write(site + QStringLiteral("/sitecustomize.py"), "import hk_spare_probe\n"));
        QVERIFY(write(site + QStringLiteral("/hk_spare_probe.py"), "VALUE = 1\n"));
        WorkerPool pool;
        const long long spare = readySpareWithSite(pool, site);
        QVERIFY(spare > 0);

        QTest::qWait(1100); // a later mtime than the spare's start, on any file system's clock
        QVERIFY(write(site + QStringLiteral("/hk_spare_probe.py"), "VALUE = 2  # edited\n"));
        WorkerCall next;
        call(pool, dir.filePath(QStringLiteral("t_candidate.py")), &next);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(!next.fromSpare, "a spare that had imported an edited file was handed the script");
        QVERIFY(next.group != spare);
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(spare), kEventLimitMs);
        pool.clear();
    }

    void moduleMadeInCodeDoesNotMakeASpareStale()
    {
        // torch 2.11 registers torch.classes as a module object whose __file__ is the bare name
        // "_classes.py": no file behind it, so nothing can go stale. On the H200 this one name
        // kept every spare from serving (docs/measurements/session-speed-2026-12-06-0358.txt).
        QTemporaryDir dir;
        QVERIFY(makeFolder(dir));
        const QString site = dir.filePath(QStringLiteral("site"));
        QVERIFY(write(site + QStringLiteral("/sitecustomize.py"),
                      "import sys, types\n"
                      "made = types.ModuleType(\"hk_made_in_code\")\n"
                      "made.__file__ = \"_hk_made_in_code.py\"\n"
                      "sys.modules[\"hk_made_in_code\"] = made\n"));
        WorkerPool pool;
        const long long spare = readySpareWithSite(pool, site);
        QVERIFY(spare > 0);

        WorkerCall next;
        call(pool, dir.filePath(QStringLiteral("t_candidate.py")), &next);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(next.fromSpare, "a module object with a bare __file__ made the spare look stale");
        QCOMPARE(next.group, spare);
        QVERIFY2(next.ok, qPrintable(next.mismatch));
        pool.clear();
    }
};

QTEST_GUILESS_MAIN(TestSpareWorkers)
#include "tst_spareworkers.moc"
