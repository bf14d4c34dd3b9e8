// SPDX-License-Identifier: Apache-2.0
// A kept worker never serves code older than the files on disk: real CPU-torch workers under the
// real contract name the user files they imported ("sources"), and an edit of one of them, however
// it was imported (transitively, from a package, lazily inside fn), replaces the worker at the
// next call, whose result then follows the edited code. Unchanged files keep the worker.
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

// fn must equal x * 2 (reference.py); every case gets its 2.0 from a user module, so writing
// 3.0 there makes a fresh worker's runs fail their check while a stale one would still pass.
const char *const kReference = "def ref(x):\n    return x * 2.0\n";

QByteArray targetScript(const QByteArray &imports, const QByteArray &body)
{
    return QByteArray("from _hotkernel_contract import Input, Target, main\n") + imports +
           "\n\ndef fn(x):\n" + body +
           "\n\nTARGET = Target(name=\"stale\", inputs=[Input(\"x\", [64])], dtype=\"fp32\", iters=2,\n"
           "                reference=\"./reference.py:ref\", device=\"cpu\")\n"
           "if __name__ == \"__main__\":\n    main(TARGET, fn)\n";
}

} // namespace

class TestStaleSources : public QObject
{
    Q_OBJECT

    QString m_python;

    static bool write(const QString &path, const QByteArray &text)
    {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
    }

    // A folder with the vendored contract, the reference and the given files.
    bool makeFolder(const QTemporaryDir &dir, const std::vector<std::pair<QString, QByteArray>> &files)
    {
        QFile contract(QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/contract/_hotkernel_contract.py"));
        if (!contract.open(QIODevice::ReadOnly) ||
            !write(dir.filePath(QStringLiteral("_hotkernel_contract.py")), contract.readAll()) ||
            !write(dir.filePath(QStringLiteral("reference.py")), kReference))
            return false;
        for (const auto &[name, text] : files) {
            if (!write(dir.filePath(name), text))
                return false;
        }
        return true;
    }

    void call(WorkerPool &pool, const QString &script, WorkerCall *out)
    {
        callWorker(pool, m_python, script, out);
    }

    // Two calls on unchanged files share one worker and pass; after `edited` gets SCALE = 3.0
    // the next call gets a new worker and fails the check, as the edited code must.
    void editIsSeen(const QString &script, const QString &edited)
    {
        WorkerPool pool;
        WorkerCall first;
        call(pool, script, &first);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(!first.reused);
        QVERIFY2(first.ok, qPrintable(first.mismatch));
        QVERIFY2(first.runner->sources().count(edited) == 1,
                 qPrintable(QStringLiteral("the worker did not report ") + edited));
        first.runner.reset();

        WorkerCall second;
        call(pool, script, &second);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(second.reused); // unchanged files keep the warm worker
        QCOMPARE(second.group, first.group);
        QVERIFY(second.ok);
        second.runner.reset();

        QVERIFY(write(edited, "SCALE = 3.0  # edited between two calls\n"));
        WorkerCall third;
        call(pool, script, &third);
        if (QTest::currentTestFailed())
            return;
        // 3.0 * x is not the reference's 2.0 * x: a fail shows that the edited code ran.
        QVERIFY2(!third.ok, "the call after the edit still ran the old code");
        QVERIFY2(!third.mismatch.isEmpty(), "a failed check names its mismatch");
        QVERIFY(!third.reused);
        QVERIFY(third.group != first.group);
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(first.group), kEventLimitMs); // the stale one is gone
        third.runner.reset();
        pool.clear();
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(third.group), kEventLimitMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_python = workerPython();
        if (!importsTorch(m_python))
            QSKIP("no Python with torch (HOTKERNEL_PYTHON) on this machine");
    }

    // (a) script -> kernels.py -> tuned_kernels.py: the edited module is not imported by the script.
    void transitiveModule()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(makeFolder(
            dir,
            {{QStringLiteral("kernels.py"),
              "from tuned_kernels import SCALE\n\n\ndef scaled(x):\n    return x * SCALE\n"},
             {QStringLiteral("tuned_kernels.py"), "SCALE = 2.0\n"},
             {QStringLiteral("script.py"), targetScript("import kernels", "    return kernels.scaled(x)")}}));
        editIsSeen(dir.filePath(QStringLiteral("script.py")),
                   dir.filePath(QStringLiteral("tuned_kernels.py")));
    }

    // (b) a module of a package directory, both spellings of its import.
    void packageModule()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(makeFolder(dir, {{QStringLiteral("mypkg/__init__.py"), ""},
                                 {QStringLiteral("mypkg/mod.py"), "SCALE = 2.0\n"},
                                 {QStringLiteral("mypkg/other.py"), "OFFSET = 0.0\n"},
                                 {QStringLiteral("script.py"),
                                  targetScript("from mypkg import mod\nimport mypkg.other",
                                               "    return x * mod.SCALE + mypkg.other.OFFSET")}}));
        editIsSeen(dir.filePath(QStringLiteral("script.py")), dir.filePath(QStringLiteral("mypkg/mod.py")));
    }

    // (c) a module fn imports only from its second call on: the worker's warm-up call before the
    // ready line does not load it, so only a run's answer line can name it.
    void lazyModule()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(makeFolder(dir, {{QStringLiteral("lazymod.py"), "SCALE = 2.0\n"},
                                 {QStringLiteral("script.py"),
                                  targetScript("import importlib\n\n_calls = [0]",
                                               "    _calls[0] += 1\n"
                                               "    if _calls[0] == 1:\n"
                                               "        return x * 2.0\n"
                                               "    return x * importlib.import_module(\"lazy\" + "
                                               "\"mod\").SCALE")}}));
        const QString lazy = dir.filePath(QStringLiteral("lazymod.py"));
        {
            // The ready line does not name it; the first run's answer does.
            WorkerPool pool;
            WorkerCall once;
            call(pool, dir.filePath(QStringLiteral("script.py")), &once);
            if (QTest::currentTestFailed())
                return;
            QVERIFY(once.ok);
            QVERIFY(once.runner->readyLine().contains("sources"));
            QVERIFY(!once.runner->readyLine()["sources"].contains(toStd(lazy)));
            QCOMPARE(once.runner->sources().count(lazy), size_t(1));
        }
        editIsSeen(dir.filePath(QStringLiteral("script.py")), lazy);
    }

    // (d) a module found through PYTHONPATH, outside the script's folder.
    void modulePathModule()
    {
        QTemporaryDir dir;
        QTemporaryDir elsewhere;
        QVERIFY(dir.isValid() && elsewhere.isValid());
        QVERIFY(write(elsewhere.filePath(QStringLiteral("shared_scale.py")), "SCALE = 2.0\n"));
        QVERIFY(
            makeFolder(dir, {{QStringLiteral("script.py"),
                              targetScript("import shared_scale", "    return x * shared_scale.SCALE")}}));
        const QByteArray saved = qgetenv("PYTHONPATH");
        qputenv("PYTHONPATH", elsewhere.path().toUtf8());
        editIsSeen(dir.filePath(QStringLiteral("script.py")),
                   elsewhere.filePath(QStringLiteral("shared_scale.py")));
        if (saved.isNull())
            qunsetenv("PYTHONPATH");
        else
            qputenv("PYTHONPATH", saved);
    }

    // A reported file that is gone replaces the worker too (the new one then fails to import it).
    void vanishedModule()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(makeFolder(dir, {{QStringLiteral("mypkg/__init__.py"), ""},
                                 {QStringLiteral("mypkg/mod.py"), "SCALE = 2.0\n"},
                                 {QStringLiteral("script.py"),
                                  targetScript("import mypkg.mod", "    return x * mypkg.mod.SCALE")}}));
        const QString script = dir.filePath(QStringLiteral("script.py"));
        WorkerPool pool;
        WorkerCall first;
        call(pool, script, &first);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(first.ok);
        const auto stale = [&] {
            return WorkerScriptRunner::staleSource(first.runner->sources(), first.runner->sourcesBroken());
        };
        QVERIFY(stale().isEmpty());
        QVERIFY(QFile::remove(dir.filePath(QStringLiteral("mypkg/mod.py"))));
        QVERIFY(stale().contains(QStringLiteral("vanished")));
        first.runner.reset();
        ScriptRunnerOptions o;
        o.python = m_python;
        o.script = script;
        o.timeout = std::chrono::minutes(10);
        WorkerLease again = judgedAcquire(pool, QStringLiteral("candidate"), o);
        QVERIFY(!again.reused);
        auto ready = capture(again.runner->waitReady());
        QTRY_VERIFY_WITH_TIMEOUT(ready->done, kEventLimitMs);
        QVERIFY(ready->error.contains(QStringLiteral("mypkg.mod")));
    }
};

QTEST_GUILESS_MAIN(TestStaleSources)
#include "tst_stalesources.moc"
