// SPDX-License-Identifier: Apache-2.0
// Per-user runtime files (issue 18): the runtime directory is checked for type, owner and mode;
// the GPU lock never opens a file of the wrong type or owner and never blocks in open() (a FIFO
// at its path); another user's lock elsewhere does not block us; the wait names the holder and
// ends with the job's timeout. The other-user cases run as hk-test-other when the test is root.
#include "../measure/measuretesthelpers.h"
#include "base/job.h"
#include "measure/devicelock.h"
#include "otheruser.h"
#include "process/runtimedir.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {
// One process (so that QProcess's kill ends it) that creates and holds an flock on argv[1].
QString holdLock()
{
    return QStringLiteral("import fcntl, os, sys, time\n"
                          "f = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)\n"
                          "fcntl.flock(f, fcntl.LOCK_EX)\n"
                          "print('held', flush=True)\n"
                          "time.sleep(600)\n");
}
} // namespace

class TestRuntimeDir : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QByteArray m_oldTmp;

    // A world-writable, sticky temporary directory, as /tmp is, for TMPDIR.
    QString sharedTmp()
    {
        const QString path = m_tmp.filePath(QStringLiteral("shared"));
        QDir().mkpath(path);
        ::chmod(QFile::encodeName(path).constData(), 01777);
        return path;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        ::chmod(QFile::encodeName(m_tmp.path()).constData(), 0755); // hk-test-other passes through
        m_oldTmp = qgetenv("TMPDIR");
        qunsetenv("XDG_RUNTIME_DIR");
        qunsetenv("HOTKERNEL_LOCK_DIR");
    }

    void init()
    {
        qputenv("TMPDIR", sharedTmp().toUtf8());
        QDir(QDir(sharedTmp()).filePath(QStringLiteral("hotkernel-%1").arg(::getuid()))).removeRecursively();
    }

    void cleanupTestCase() { qputenv("TMPDIR", m_oldTmp); }

    void fallbackIsAPrivateDirectory()
    {
        QString error;
        const QString dir = RuntimeDir::path(&error);
        QVERIFY2(!dir.isEmpty(), qPrintable(error));
        QCOMPARE(dir, QDir(sharedTmp()).filePath(QStringLiteral("hotkernel-%1").arg(::getuid())));
        struct stat st = {};
        QCOMPARE(::lstat(QFile::encodeName(dir).constData(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0700);
        QCOMPARE(st.st_uid, ::getuid());
    }

    void xdgRuntimeDirWhenPrivate()
    {
        const QString xdg = m_tmp.filePath(QStringLiteral("xdg"));
        QVERIFY(QDir().mkpath(xdg));
        ::chmod(QFile::encodeName(xdg).constData(), 0700);
        qputenv("XDG_RUNTIME_DIR", xdg.toUtf8());
        QCOMPARE(RuntimeDir::path(), xdg);
        // Not private: not used.
        ::chmod(QFile::encodeName(xdg).constData(), 0755);
        QVERIFY(RuntimeDir::path() != xdg);
        qunsetenv("XDG_RUNTIME_DIR");
    }

    void refusesAnOpenFallback()
    {
        const QString dir = QDir(sharedTmp()).filePath(QStringLiteral("hotkernel-%1").arg(::getuid()));
        QVERIFY(QDir().mkpath(dir));
        ::chmod(QFile::encodeName(dir).constData(), 0777);
        QString error;
        QVERIFY(RuntimeDir::path(&error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("chmod 700")), qPrintable(error));
    }

    void refusesASymlinkedFallback()
    {
        const QString dir = QDir(sharedTmp()).filePath(QStringLiteral("hotkernel-%1").arg(::getuid()));
        QVERIFY(QFile::link(m_tmp.path(), dir));
        QString error;
        QVERIFY(RuntimeDir::path(&error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("symbolic link")), qPrintable(error));
        QFile::remove(dir);
    }

    void lockRefusesAFifoWithoutBlocking()
    {
        QString error;
        const QString path = DeviceLock::lockPath(0, &error);
        QVERIFY2(!path.isEmpty(), qPrintable(error));
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        DeviceLock lock;
        try {
            lock.tryAcquire(0);
            QFAIL("a FIFO was taken for the lock");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("FIFO")), qPrintable(e.message()));
        }
        QFile::remove(path);
        QVERIFY(lock.tryAcquire(0));
    }

    void lockRefusesASymlink()
    {
        const QString path = DeviceLock::lockPath(1);
        const QString target = m_tmp.filePath(QStringLiteral("elsewhere"));
        QVERIFY(QFile::link(target, path));
        DeviceLock lock;
        QVERIFY_THROWS_EXCEPTION(UserError, lock.tryAcquire(1));
        QVERIFY(!QFile::exists(target)); // not created through the link
        QFile::remove(path);
    }

    void waitNamesTheHolderAndEndsWithTheTimeout()
    {
        const QString path = DeviceLock::lockPath(2);
        DeviceLock mine;
        QVERIFY(mine.tryAcquire(2)); // creates the file with the right owner and mode
        mine.release();
        QProcess holder;
        holder.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), holdLock(), path});
        QVERIFY(holder.waitForStarted(30000));
        QByteArray holderOutput; // read as it comes: QTRY_* evaluates its expression again at the end
        QTRY_VERIFY_WITH_TIMEOUT((holderOutput += holder.readAllStandardOutput()).contains("held"), 30000);
        DeviceLock waiter;
        Job job(1, QStringLiteral("verify"), Json::object(), QStringLiteral("test"));
        QStringList waits;
        auto got = capture(waiter.acquire(
            2, &job, [&waits](const QString &m) { waits.append(m); }, std::chrono::milliseconds(20),
            std::chrono::milliseconds(800)));
        QTRY_VERIFY_WITH_TIMEOUT(got->done, 30000);
        QVERIFY(!got->value);
        QVERIFY2(got->error.contains(QStringLiteral("timeout")), qPrintable(got->error));
        QVERIFY(!waits.isEmpty());
        QVERIFY2(waits.first().contains(
                     QStringLiteral("waiting for the GPU, held by pid %1").arg(holder.processId())),
                 qPrintable(waits.first()));
        holder.kill();
        holder.waitForFinished(10000);
    }

    void anotherUsersLockDoesNotBlock()
    {
        if (::getuid() != 0)
            QSKIP("needs root, to hold a lock as a second user (hk-test-other)");
        const QString other = otherUser();
        if (other.isEmpty())
            QSKIP("cannot create or find the user hk-test-other (useradd failed)");
        // Where every user's hotkernel used to lock: <tmp>/hotkernel-gpu0.lock, mode 0666.
        const QString shared = QDir(sharedTmp()).filePath(QStringLiteral("hotkernel-gpu0.lock"));
        QProcess holder;
        holder.start(QStringLiteral("setpriv"),
                     asUser(other) + QStringList{QStringLiteral("/usr/bin/python3"), QStringLiteral("-c"),
                                                 holdLock(), shared});
        QVERIFY(holder.waitForStarted(30000));
        QByteArray holderOutput; // read as it comes: QTRY_* evaluates its expression again at the end
        QTRY_VERIFY_WITH_TIMEOUT((holderOutput += holder.readAllStandardOutput()).contains("held"), 30000);
        DeviceLock lock;
        QVERIFY(lock.tryAcquire(0));
        QVERIFY(DeviceLock::lockPath(0) != shared);

        // Their directory where ours would be: refused with the reason, never waited on.
        lock.release();
        const QString ours = QDir(sharedTmp()).filePath(QStringLiteral("hotkernel-%1").arg(::getuid()));
        QDir(ours).removeRecursively();
        QVERIFY(runQuietly(QStringLiteral("runuser"),
                           {QStringLiteral("-u"), other, QStringLiteral("--"), QStringLiteral("mkdir"),
                            QStringLiteral("-m"), QStringLiteral("0700"), ours}));
        try {
            lock.tryAcquire(0);
            QFAIL("another user's directory was used");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("belongs to user id")), qPrintable(e.message()));
        }
        QVERIFY(runQuietly(QStringLiteral("rm"), {QStringLiteral("-rf"), ours}));
        // Their FIFO and their file in a lock directory we were told to share: refused, no hang.
        const QString lockDir = sharedTmp();
        qputenv("HOTKERNEL_LOCK_DIR", lockDir.toUtf8());
        const QString fifo = DeviceLock::lockPath(3);
        QVERIFY(runQuietly(QStringLiteral("runuser"), {QStringLiteral("-u"), other, QStringLiteral("--"),
                                                       QStringLiteral("mkfifo"), fifo}));
        QVERIFY_THROWS_EXCEPTION(UserError, lock.tryAcquire(3));
        try {
            lock.tryAcquire(0); // the shared file the other user holds
            QFAIL("another user's lock file was used");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("belongs to user id")), qPrintable(e.message()));
        }
        qunsetenv("HOTKERNEL_LOCK_DIR");
        holder.kill();
        holder.waitForFinished(10000);
        QFile::remove(fifo);
    }

    void cpuTargetsTakeNoLock()
    {
        QVERIFY(!DeviceLock::needsLock(Json{{"event", "ready"}, {"device", "cpu"}}));
        QVERIFY(DeviceLock::needsLock(Json{{"event", "ready"}, {"device", "cuda"}}));
        QVERIFY(DeviceLock::needsLock(Json())); // unknown (fresh mode): take it
    }
};

QTEST_GUILESS_MAIN(TestRuntimeDir)
#include "tst_runtimedir.moc"
