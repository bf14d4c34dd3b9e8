// SPDX-License-Identifier: Apache-2.0
// ImportedSources (issue 41): a file a worker imported that changed after it hashed it, or that
// was written at all during the verify (even back to the same bytes and mtime), is named; files
// left alone and a worker's own scratch files are not.
#include "measure/importedsources.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <sys/stat.h>
#include <utime.h>

using namespace hotkernel;

namespace {
QByteArray sha(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

bool write(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

qint64 nowNs()
{
    return QDateTime::currentMSecsSinceEpoch() * 1000000;
}
} // namespace

class TestImportedSources : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void unchangedFilesPass()
    {
        QTemporaryDir dir;
        const QString module = dir.filePath(QStringLiteral("base.py"));
        QVERIFY(write(module, "def fn(x): return x\n"));
        QThread::msleep(20); // the file's ctime is before the verify
        const qint64 since = nowNs();
        QCOMPARE(ImportedSources::changed({{module, sha("def fn(x): return x\n")}}, {}, since), QString());
    }

    void rewrittenAndRestoredIsCaught()
    {
        QTemporaryDir dir;
        const QString module = dir.filePath(QStringLiteral("base.py"));
        const QByteArray original = "def fn(x): return x\n";
        QVERIFY(write(module, original));
        struct stat before
        {
        };
        QVERIFY(::stat(QFile::encodeName(module).constData(), &before) == 0);
        QThread::msleep(20);
        const qint64 since = nowNs();
        QThread::msleep(20);
        // The attack: rewrite, let the baseline import, restore the bytes and the mtime.
        QVERIFY(write(module, "def fn(x): return x * 3\n"));
        QVERIFY(write(module, original));
        const utimbuf times{before.st_atime, before.st_mtime};
        QVERIFY(::utime(QFile::encodeName(module).constData(), &times) == 0);
        const QString why = ImportedSources::changed({{module, sha(original)}}, {}, since);
        QVERIFY2(why.contains(module) && why.contains(QLatin1String("written during the verify")),
                 qPrintable(why));
    }

    void changedBytesAreNamed()
    {
        QTemporaryDir dir;
        const QString module = dir.filePath(QStringLiteral("base.py"));
        QVERIFY(write(module, "def fn(x): return x * 3\n"));
        QThread::msleep(20);
        // The worker hashed other bytes than the disk holds (it imported the rewritten file).
        const QString why = ImportedSources::changed({{module, sha("def fn(x): return x\n")}}, {}, nowNs());
        QVERIFY2(why.contains(module) && why.contains(QLatin1String("changed after a worker imported it")),
                 qPrintable(why));
    }

    void scratchFilesMayBeWrittenButNotChanged()
    {
        QTemporaryDir scratch;
        const qint64 since = nowNs();
        QThread::msleep(20);
        const QString generated = scratch.filePath(QStringLiteral("inductor/c1.py"));
        QVERIFY(QDir(scratch.path()).mkpath(QStringLiteral("inductor")));
        QVERIFY(write(generated, "kernel = 1\n"));
        QCOMPARE(ImportedSources::changed({{generated, sha("kernel = 1\n")}}, {scratch.path()}, since),
                 QString());
        QCOMPARE(ImportedSources::changed({{generated, QByteArray()}}, {scratch.path()}, since), QString());
        QVERIFY(
            !ImportedSources::changed({{generated, sha("kernel = 2\n")}}, {scratch.path()}, since).isEmpty());
    }

    void vanishedFileIsNamed()
    {
        const QString gone = QStringLiteral("/nonexistent/hotkernel/base.py");
        QVERIFY(ImportedSources::changed({{gone, QByteArray()}}, {}, nowNs())
                    .contains(QLatin1String("vanished")));
    }
};

QTEST_GUILESS_MAIN(TestImportedSources)
#include "tst_importedsources.moc"
