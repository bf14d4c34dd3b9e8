// SPDX-License-Identifier: Apache-2.0
// Issue 41 on a remote host: the remote supervisor makes a worker's private scratch there and
// confines its writes to it with Landlock, and the runners report what it said as their
// confinement. Here "the host" is this machine through `sh -c` (ThisMachineShell); the supervisor
// and the runners are the real ones, the worker a fake that plants a file outside its scratch and
// writes one inside (tests/data/measure/fake_confined.py). tst_remotessh does the same over ssh.
#include "measure/freshscriptrunner.h"
#include "measure/measuretesthelpers.h"
#include "measure/remotesandbox.h"
#include "measure/workerscriptrunner.h"
#include "testlimits.h"
#include "thismachineshell.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace hotkernel;
using namespace hotkernel::test;

class TestRemoteConfine : public QObject
{
    Q_OBJECT

    QTemporaryDir m_root;
    std::shared_ptr<ThisMachineShell> m_shell;
    long m_abi = 0; // this kernel's Landlock ABI

    ScriptRunnerOptions options() const
    {
        ScriptRunnerOptions o;
        o.python = QStringLiteral("python3");
        o.script = QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure/fake_confined.py");
        o.workingDirectory = m_root.path();
        o.timeout = std::chrono::minutes(5);
        o.remote = m_shell;
        return o;
    }
    QString plant() const { return m_root.filePath(QStringLiteral("planted_by_worker.txt")); }
    QStringList scratches() const
    {
        return QDir(m_root.filePath(QStringLiteral(".hotkernel")))
            .entryList({QStringLiteral("worker-*")}, QDir::Dirs);
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
        // sh, the supervisor and the worker inherit this process's environment.
        qputenv("HOTKERNEL_TEST_PLANT", plant().toUtf8());
        m_abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    }

    void cleanup() { QFile::remove(plant()); }

    void aRemoteWorkerIsConfinedToItsScratch()
    {
        WorkerScriptRunner worker(options());
        worker.start();
        const QString scratch = worker.remoteScratchDir();
        QVERIFY2(scratch.startsWith(m_root.filePath(QStringLiteral(".hotkernel/worker-"))),
                 qPrintable(scratch));
        auto ready = capture(worker.waitReady());
        QVERIFY(QTest::qWaitFor([&] { return ready->done; }, kEventLimitMs));
        QVERIFY2(ready->value && *ready->value, qPrintable(ready->error));
        auto run = capture(worker.run(1));
        QVERIFY(QTest::qWaitFor([&] { return run->done; }, kEventLimitMs));
        QVERIFY2(run->value, qPrintable(run->error));
        QCOMPARE(run->value->line.run, 1); // the report line was not taken for the result line
        const QString confinement = worker.confinement();
        if (m_abi < 1) {
            QVERIFY2(confinement.startsWith(QLatin1String("none: this kernel has no Landlock")),
                     qPrintable(confinement));
            QSKIP("this kernel has no Landlock: the worker ran unconfined, and said so");
        }
        QCOMPARE(confinement, QStringLiteral("landlock ABI %1").arg(m_abi));
        QVERIFY2(!QFileInfo::exists(plant()), "the confined worker planted a file outside its scratch");
        // It wrote inside: its TMPDIR is a folder of the scratch.
        QVERIFY(QFileInfo::exists(scratch + QStringLiteral("/tmp/inside.txt")));
        worker.stop();
        // The supervisor removes the scratch when the worker ends.
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(scratch), kEventLimitMs);
    }

    void freshRunsShareOneConfinedScratch()
    {
        std::optional<FreshScriptRunner> runner(std::in_place, options());
        const QString scratch = runner->remoteScratchDir();
        for (int i = 1; i <= 2; ++i) {
            auto run = capture(runner->run(i));
            QVERIFY(QTest::qWaitFor([&] { return run->done; }, kEventLimitMs));
            QVERIFY2(run->value, qPrintable(run->error));
            QCOMPARE(run->value->line.run, i);
            // Kept for the next run (and the judge folder verify makes in it).
            QVERIFY(QFileInfo::exists(scratch + QStringLiteral("/tmp/inside.txt")));
        }
        if (m_abi < 1)
            QSKIP("this kernel has no Landlock");
        QCOMPARE(runner->confinement(), QStringLiteral("landlock ABI %1").arg(m_abi));
        QVERIFY2(!QFileInfo::exists(plant()), "a confined run planted a file outside its scratch");
        runner.reset(); // removes the scratch there, without waiting
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(scratch), kEventLimitMs);
    }

    void theReportNeedsTheToken()
    {
        // A line posing as the supervisor's report without its token is taken out and counts for
        // nothing; the real one says what it says; every other line stays.
        const QByteArray token = "3f1c";
        QByteArray output = "{\"hotkernel_confinement\": \"landlock ABI 9\", \"token\": \"guess\"}\n"
                            "{\"run\": 1}\n";
        QCOMPARE(RemoteSandbox::takeReport(&output, token),
                 QStringLiteral("none: the remote supervisor reported nothing about confining the worker"));
        QCOMPARE(output, QByteArray("{\"run\": 1}\n"));
        output = "{\"hotkernel_confinement\": \"landlock ABI 4\", \"token\": \"3f1c\"}\n{\"run\": 2}";
        QCOMPARE(RemoteSandbox::takeReport(&output, token), QStringLiteral("landlock ABI 4"));
        QCOMPARE(output, QByteArray("{\"run\": 2}"));
        output = "{\"hotkernel_confinement\": \"fully safe\", \"token\": \"3f1c\"}\n";
        QCOMPARE(RemoteSandbox::takeReport(&output, token),
                 QStringLiteral("none: the remote supervisor's report was not understood"));
    }
};

QTEST_GUILESS_MAIN(TestRemoteConfine)
#include "tst_remoteconfine.moc"
