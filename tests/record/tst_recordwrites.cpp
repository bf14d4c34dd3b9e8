// SPDX-License-Identifier: Apache-2.0
// What record writes stays inside the working directory (symlinks at LEADERBOARD.md or results/
// never redirect it) and what a note says cannot take over the rendered leaderboard.
#include "base/usererror.h"
#include "record/recorder.h"
#include "recordtestdata.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;
using namespace hotkernel::recordtest;

namespace {
RecordRequest request(const QString &root)
{
    RecordRequest r;
    r.root = root;
    r.target = QStringLiteral("rmsnorm");
    r.verify = verifyResult(QStringLiteral("rmsnorm-faster"), root);
    r.note = QStringLiteral("one row per program");
    r.who = QStringLiteral("agent: test-model");
    return r;
}

QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                               QDir::Name);
}
} // namespace

class TestRecordWrites : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void leaderboardSymlinkLeadingOutIsReplacedNotFollowed()
    {
        QTemporaryDir root;
        QTemporaryDir outside;
        const QString victim = outside.filePath(QStringLiteral("README.md"));
        const QByteArray precious = "# someone else's file\n\nkeep me\n";
        QVERIFY(writeAll(victim, precious));
        const QString board = Recorder::leaderboardPath(root.path());
        QVERIFY(QFile::link(victim, board));

        Recorder::record(request(root.path()));
        QCOMPARE(readAll(victim), precious);
        QVERIFY(!QFileInfo(board).isSymLink());
        QCOMPARE(readAll(board), Recorder::leaderboardText(root.path()).toUtf8());

        // `hotkernel leaderboard` takes the same path: a link put back is replaced again.
        QVERIFY(QFile::remove(board));
        QVERIFY(QFile::link(victim, board));
        const LeaderboardUpdate update = Recorder::regenerateLeaderboard(root.path());
        QVERIFY(update.changed);
        QCOMPARE(readAll(victim), precious);
        QVERIFY(!QFileInfo(board).isSymLink());
        QCOMPARE(entries(outside.path()), QStringList{QStringLiteral("README.md")});
    }

    void resultsSymlinkLeadingOutIsRefused()
    {
        QTemporaryDir root;
        QTemporaryDir outside;
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("results")));
        QVERIFY(QFile::link(outside.path(), root.filePath(QStringLiteral("results/rmsnorm"))));
        try {
            Recorder::record(request(root.path()));
            QFAIL("recorded through a symlink that leads out of the working directory");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("symbolic link")), qPrintable(e.message()));
            QVERIFY2(e.message().contains(QStringLiteral("Replace the link")), qPrintable(e.message()));
        }
        QCOMPARE(entries(outside.path()), QStringList());
    }

    void hostileNoteIsRenderedHarmless()
    {
        QTemporaryDir root;
        RecordRequest r = request(root.path());
        const QString rlo = QString(QChar(0x202E));
        r.note = QStringLiteral("fast <!-- hides the rest <script>alert(1)</script> ") + rlo +
                 QStringLiteral("gnp.exe `code` [click](http://example.invalid) ![i](x.png) a|b &amp; *x*");
        r.who = QStringLiteral("agent: \u2066isolated\u2069 <b>bold</b>\u200F");
        const RecordOutcome first = Recorder::record(r);
        RecordRequest later = request(root.path());
        later.note = QStringLiteral("a later row that must stay visible");
        Recorder::record(later);

        const QString board = QString::fromUtf8(readAll(Recorder::leaderboardPath(root.path())));
        QCOMPARE(board.count(QStringLiteral("<!--")), 1); // the generator's own comment, nothing else
        QVERIFY(!board.contains(QStringLiteral("<script")));
        QVERIFY(!board.contains(QStringLiteral("<b>")));
        QVERIFY(!board.contains(QStringLiteral("[click](http")));
        QVERIFY(!board.contains(QStringLiteral("`code`")));
        for (const char16_t c : {u'\u202E', u'\u2066', u'\u2069', u'\u200F'})
            QVERIFY2(!board.contains(QChar(c)), qPrintable(QString::number(c, 16)));
        QVERIFY2(board.contains(QStringLiteral("&lt;!-- hides the rest &lt;script&gt;")), qPrintable(board));
        QVERIFY2(board.contains(QStringLiteral("\\`code\\` \\[click\\](http://example.invalid)")),
                 qPrintable(board));
        QVERIFY2(board.contains(QStringLiteral("a\\|b &amp;amp; \\*x\\*")), qPrintable(board));
        QVERIFY(board.contains(QStringLiteral("a later row that must stay visible")));
        // Every row still has its eleven cells: the note did not open or close a column.
        for (const QString &line : board.split(QLatin1Char('\n'))) {
            if (!line.startsWith(QStringLiteral("| 20")))
                continue;
            QString unescaped = line;
            unescaped.remove(QStringLiteral("\\|"));
            QCOMPARE(unescaped.count(QLatin1Char('|')), 12);
        }

        // The log keeps what was given, less the invisible controls.
        const auto log = parseJson(readAll(first.absoluteLogPath));
        QVERIFY(log);
        const QString note = toQt((*log)["note"].get<std::string>());
        QVERIFY(note.contains(QStringLiteral("<!-- hides the rest <script>alert(1)</script>")));
        QVERIFY(note.contains(QStringLiteral("[click](http://example.invalid)")));
        QVERIFY(!note.contains(rlo));
        QCOMPARE(toQt((*log)["who"].get<std::string>()), QStringLiteral("agent: isolated <b>bold</b>"));
    }

    void targetNameOverTheLimitIsRefusedWithTheRule()
    {
        QTemporaryDir root;
        RecordRequest r = request(root.path());
        r.target = QString(129, QLatin1Char('a'));
        r.verify["target"] = toStd(r.target);
        try {
            Recorder::record(r);
            QFAIL("a 129-character target was recorded");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("128")), qPrintable(e.message()));
        }
    }
};

QTEST_GUILESS_MAIN(TestRecordWrites)
#include "tst_recordwrites.moc"
