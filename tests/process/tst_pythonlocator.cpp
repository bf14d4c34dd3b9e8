// SPDX-License-Identifier: Apache-2.0
// The interpreters the locator tries from PATH (issue 44): one file met through two folders that
// are one (/bin and /usr/bin on merged /usr) is tried once; a venv's link to it is another one.
#include "process/pythonlocator.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

class TestPythonLocator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void folderLinkedToAnotherIsTriedOnce()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        QDir dir(root.path());
        QVERIFY(dir.mkpath(QStringLiteral("usr/bin")));
        const QString real = dir.filePath(QStringLiteral("usr/bin/python3"));
        QVERIFY(QFile::copy(QStringLiteral("/bin/sh"), real));
        // The merged-/usr layout: bin is a link to usr/bin.
        QVERIFY(QFile::link(QStringLiteral("usr/bin"), dir.filePath(QStringLiteral("bin"))));
        const QStringList found = PythonLocator::pathCandidates(
            dir.filePath(QStringLiteral("usr/bin")) + QLatin1Char(':') + dir.filePath(QStringLiteral("bin")));
        QCOMPARE(found, QStringList{real});
    }

    void venvLinkToTheSameFileStaysItsOwnCandidate()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        QDir dir(root.path());
        QVERIFY(dir.mkpath(QStringLiteral("usr/bin")));
        QVERIFY(dir.mkpath(QStringLiteral("venv/bin")));
        const QString real = dir.filePath(QStringLiteral("usr/bin/python3"));
        QVERIFY(QFile::copy(QStringLiteral("/bin/sh"), real));
        const QString venv = dir.filePath(QStringLiteral("venv/bin/python3"));
        QVERIFY(QFile::link(real, venv));
        // python beside python3 in the venv is the same interpreter: tried once.
        QVERIFY(QFile::link(QStringLiteral("python3"), dir.filePath(QStringLiteral("venv/bin/python"))));
        const QStringList found =
            PythonLocator::pathCandidates(dir.filePath(QStringLiteral("venv/bin")) + QLatin1Char(':') +
                                          dir.filePath(QStringLiteral("usr/bin")));
        QCOMPARE(found, (QStringList{venv, real}));
    }
};

QTEST_GUILESS_MAIN(TestPythonLocator)
#include "tst_pythonlocator.moc"
