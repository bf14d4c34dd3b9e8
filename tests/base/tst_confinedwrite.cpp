// SPDX-License-Identifier: Apache-2.0
// ConfinedWrite: nothing is written outside the working directory, whatever names and symlinks
// it holds; each case runs with openat2 and with the walk by hand older kernels get.
#include "base/confinedwrite.h"
#include "base/usererror.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QStringList everythingIn(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                               QDir::Name);
}

QString thrown(const std::function<void()> &f)
{
    try {
        f();
    } catch (const UserError &e) {
        return e.message();
    }
    return {};
}

} // namespace

class TestConfinedWrite : public QObject
{
    Q_OBJECT

    void modes()
    {
        QTest::addColumn<bool>("openat2");
        QTest::newRow("openat2") << true;
        QTest::newRow("by hand") << false;
    }

private Q_SLOTS:
    void cleanup() { ConfinedWrite::setOpenat2Enabled(true); }

    void symlinkAtTheFileIsReplacedNeverWrittenThrough_data() { modes(); }
    void symlinkAtTheFileIsReplacedNeverWrittenThrough()
    {
        QFETCH(bool, openat2);
        ConfinedWrite::setOpenat2Enabled(openat2);
        QTemporaryDir root;
        QTemporaryDir outside;
        const QString victim = outside.filePath(QStringLiteral("victim.md"));
        QVERIFY(writeAll(victim, "precious\n"));
        QVERIFY(QFile::link(victim, root.filePath(QStringLiteral("LEADERBOARD.md"))));
        ConfinedWrite::writeFile(root.path(), QStringLiteral("LEADERBOARD.md"), "board\n");
        QCOMPARE(readAll(victim), QByteArray("precious\n"));
        QVERIFY(!QFileInfo(root.filePath(QStringLiteral("LEADERBOARD.md"))).isSymLink());
        QCOMPARE(readAll(root.filePath(QStringLiteral("LEADERBOARD.md"))), QByteArray("board\n"));
        QCOMPARE(everythingIn(root.path()),
                 QStringList{QStringLiteral("LEADERBOARD.md")}); // no temporary left
    }

    void symlinkedFolderLeadingOutIsRefused_data() { modes(); }
    void symlinkedFolderLeadingOutIsRefused()
    {
        QFETCH(bool, openat2);
        ConfinedWrite::setOpenat2Enabled(openat2);
        QTemporaryDir root;
        QTemporaryDir outside;
        QVERIFY(QFile::link(outside.path(), root.filePath(QStringLiteral("profiles"))));
        const QString message = thrown(
            [&] { ConfinedWrite::writeFile(root.path(), QStringLiteral("profiles/x.kernsum.csv"), "data"); });
        QVERIFY2(message.contains(QStringLiteral("symbolic link")), qPrintable(message));
        QVERIFY2(message.contains(root.filePath(QStringLiteral("profiles"))), qPrintable(message));
        QVERIFY(everythingIn(outside.path()).isEmpty());
        // A deeper link too: results/t -> outside.
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("results")));
        QVERIFY(QFile::link(outside.path(), root.filePath(QStringLiteral("results/t"))));
        QVERIFY_THROWS_EXCEPTION(UserError, ConfinedDir::open(root.path(), QStringLiteral("results/t/sub")));
        QVERIFY(everythingIn(outside.path()).isEmpty());
    }

    void symlinkedFolderInsideIsFollowedWithOpenat2()
    {
        QTemporaryDir root;
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("real")));
        QVERIFY(QFile::link(QStringLiteral("real"), root.filePath(QStringLiteral("alias"))));
        ConfinedWrite::writeFile(root.path(), QStringLiteral("alias/f.txt"), "x");
        QCOMPARE(readAll(root.filePath(QStringLiteral("real/f.txt"))), QByteArray("x"));
    }

    void namesWithSeparatorsOrDotDotAreRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("dotdot") << QStringLiteral("..");
        QTest::newRow("dot") << QStringLiteral(".");
        QTest::newRow("slash") << QStringLiteral("a/b");
        QTest::newRow("backslash") << QStringLiteral("a\\b");
        QTest::newRow("inner dotdot") << QStringLiteral("x..kernsum.csv");
        QTest::newRow("empty") << QString();
        QTest::newRow("long") << QString(256, QLatin1Char('a'));
    }
    void namesWithSeparatorsOrDotDotAreRefused()
    {
        QFETCH(QString, name);
        QTemporaryDir root;
        const ConfinedDir dir = ConfinedDir::open(root.path(), QStringLiteral("profiles"));
        const QString message = thrown([&] { dir.write(name, "data"); });
        QVERIFY2(message.contains(QStringLiteral("plain name")), qPrintable(message)); // what to do
        QCOMPARE(everythingIn(dir.path()), QStringList());
    }

    void foldersClimbingOutAreRefused()
    {
        QTemporaryDir parent;
        QVERIFY(QDir(parent.path()).mkpath(QStringLiteral("work")));
        const QString root = parent.filePath(QStringLiteral("work"));
        const QString message = thrown([&] { ConfinedDir::open(root, QStringLiteral("../escape")); });
        QVERIFY2(message.contains(QStringLiteral("'..'")), qPrintable(message));
        QVERIFY_THROWS_EXCEPTION(UserError, ConfinedDir::open(root, parent.filePath(QStringLiteral("x"))));
        QCOMPARE(everythingIn(parent.path()), QStringList{QStringLiteral("work")});
    }

    void keepNeverReplaces()
    {
        QTemporaryDir root;
        QTemporaryDir outside;
        const ConfinedDir dir = ConfinedDir::open(root.path(), QString());
        QVERIFY(dir.write(QStringLiteral("a.json"), "first", ConfinedDir::Existing::Keep));
        QVERIFY(!dir.write(QStringLiteral("a.json"), "second", ConfinedDir::Existing::Keep));
        QCOMPARE(readAll(root.filePath(QStringLiteral("a.json"))), QByteArray("first"));
        const QString victim = outside.filePath(QStringLiteral("v"));
        QVERIFY(writeAll(victim, "precious"));
        QVERIFY(QFile::link(victim, root.filePath(QStringLiteral("b.json"))));
        QVERIFY(!dir.write(QStringLiteral("b.json"), "x", ConfinedDir::Existing::Keep));
        QCOMPARE(readAll(victim), QByteArray("precious"));
        QCOMPARE(everythingIn(root.path()),
                 (QStringList{QStringLiteral("a.json"), QStringLiteral("b.json")}));
    }

    void tempDirGoesWithEverythingInItButNotThroughLinks()
    {
        QTemporaryDir root;
        QTemporaryDir outside;
        QVERIFY(writeAll(outside.filePath(QStringLiteral("keep")), "precious"));
        const ConfinedDir dir = ConfinedDir::open(root.path(), QStringLiteral("profiles"));
        QString path;
        {
            const ConfinedTempDir scratch(dir, QStringLiteral("profile"));
            path = scratch.path();
            QVERIFY(QFileInfo(path).fileName().startsWith(QStringLiteral(".hotkernel-profile-")));
            QCOMPARE(QFileInfo(path).permissions() & (QFile::ReadOther | QFile::ReadGroup),
                     QFile::Permissions());
            QVERIFY(QDir(path).mkpath(QStringLiteral("a/b/c")));
            QVERIFY(writeAll(scratch.filePath(QStringLiteral("a/b/c/report.nsys-rep")), "r"));
            QVERIFY(QFile::link(outside.path(), scratch.filePath(QStringLiteral("out"))));
            QVERIFY(scratch.dir().write(QStringLiteral("x.csv"), "csv"));
            dir.moveFrom(scratch.dir(), QStringLiteral("x.csv"), QStringLiteral("x.csv"));
        }
        QVERIFY(!QFileInfo::exists(path));
        QCOMPARE(everythingIn(dir.path()), QStringList{QStringLiteral("x.csv")});
        QCOMPARE(readAll(outside.filePath(QStringLiteral("keep"))), QByteArray("precious"));
    }

    void moveRefusesASymlinkSource()
    {
        QTemporaryDir root;
        QTemporaryDir outside;
        QVERIFY(writeAll(outside.filePath(QStringLiteral("secret")), "secret"));
        const ConfinedDir dir = ConfinedDir::open(root.path(), QString());
        const ConfinedTempDir scratch(dir, QStringLiteral("t"));
        QVERIFY(
            QFile::link(outside.filePath(QStringLiteral("secret")), scratch.filePath(QStringLiteral("r"))));
        QVERIFY_THROWS_EXCEPTION(UserError,
                                 dir.moveFrom(scratch.dir(), QStringLiteral("r"), QStringLiteral("r")));
        QVERIFY(!QFileInfo::exists(root.filePath(QStringLiteral("r"))));
    }
};

QTEST_GUILESS_MAIN(TestConfinedWrite)
#include "tst_confinedwrite.moc"
