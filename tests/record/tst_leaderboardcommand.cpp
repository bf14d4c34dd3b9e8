// SPDX-License-Identifier: Apache-2.0
#include "record/leaderboard.h"
#include "record/recorder.h"
#include "recordtestdata.h"
#include "testlimits.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;
using namespace hotkernel::recordtest;

namespace {
struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

Run leaderboard(const QString &dir, const QStringList &arguments)
{
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(QStringLiteral(HOTKERNEL_BINARY), QStringList{QStringLiteral("leaderboard")} + arguments);
    Run run;
    if (!p.waitForFinished(hotkernel::test::kEventLimitMs) || p.exitStatus() != QProcess::NormalExit)
        return run;
    run.exitCode = p.exitCode();
    run.out = QString::fromUtf8(p.readAllStandardOutput());
    run.err = QString::fromUtf8(p.readAllStandardError());
    return run;
}
} // namespace

class TestLeaderboardCommand : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void checkExitCodes()
    {
        QTemporaryDir root;
        const QString board = Recorder::leaderboardPath(root.path());

        // No results and no file: the check fails (the file must exist) and writes nothing.
        Run run = leaderboard(root.path(), {QStringLiteral("--check")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("missing")), qPrintable(run.err));
        QVERIFY(!QFileInfo::exists(board));

        // Generated with no results: says so, and the check passes.
        run = leaderboard(root.path(), {});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QStringLiteral("wrote")), qPrintable(run.out));
        QVERIFY(readAll(board).contains("No results yet"));
        run = leaderboard(root.path(), {QStringLiteral("--check")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QStringLiteral("up to date")), qPrintable(run.out));

        // A new log the board does not list yet: the check fails with a diff and writes nothing.
        RecordRequest request;
        request.root = root.path();
        request.target = QStringLiteral("rmsnorm");
        request.verify = verifyResult(QStringLiteral("rmsnorm-faster"), root.path());
        request.note = QStringLiteral("one row per program");
        request.who = QStringLiteral("agent: test-model");
        Recorder::record(request);
        const QByteArray recorded = readAll(board);
        QVERIFY(writeAll(board, Leaderboard::generate({}).toUtf8())); // back to "no results"
        const QByteArray stale = readAll(board);
        run = leaderboard(root.path(), {QStringLiteral("--check")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("differs")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("first difference at line")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("- No results yet")), qPrintable(run.err));
        QCOMPARE(readAll(board), stale);

        run = leaderboard(root.path(), {});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(readAll(board), recorded);
        QCOMPARE(leaderboard(root.path(), {QStringLiteral("--check")}).exitCode, 0);

        // One byte edited by hand.
        QVERIFY(writeAll(board, recorded + "\n"));
        QCOMPARE(leaderboard(root.path(), {QStringLiteral("--check")}).exitCode, 1);

        run = leaderboard(root.path(), {QStringLiteral("--bogus")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("usage: hotkernel leaderboard")), qPrintable(run.err));
    }

    void unreadableLogIsAWarningNotAFailure()
    {
        QTemporaryDir root;
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("results/rmsnorm")));
        QVERIFY(writeAll(root.filePath(QStringLiteral("results/rmsnorm/broken.json")), "{"));
        Run run = leaderboard(root.path(), {});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains(QStringLiteral("results/rmsnorm/broken.json")), qPrintable(run.err));
        QCOMPARE(leaderboard(root.path(), {QStringLiteral("--check")}).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestLeaderboardCommand)
#include "tst_leaderboardcommand.moc"
