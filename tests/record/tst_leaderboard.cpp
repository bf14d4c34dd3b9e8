// SPDX-License-Identifier: Apache-2.0
#include "measure/runline.h"
#include "record/leaderboard.h"
#include "record/leaderboardcommand.h"
#include "record/recorder.h"
#include "recordtestdata.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <random>

using namespace hotkernel;
using namespace hotkernel::recordtest;

namespace {
struct Entry
{
    const char *verify;
    const char *target;
    const char *note;
    const char *who;
};

// Recorded in this order, one minute apart, with fixed ids: the golden board's input.
const Entry Entries[] = {
    {"rmsnorm-faster", "rmsnorm", "one row per program, fp32 accumulation", "agent: test-model"},
    {"rmsnorm-slower", "rmsnorm", "two rows per program", "agent: test-model"},
    {"rmsnorm-incorrect", "rmsnorm", "skipped the epsilon | oops, 100% wrong", "agent: test-model"},
    {"rmsnorm-faster-best", "rmsnorm", "vectorised loads (8 x bf16)", "hand-written by A. Tester"},
    {"rmsnorm-faster-less", "rmsnorm", "num_warps=2 instead of 8", "agent: test-model"},
    {"rmsnorm-invalid-cpu", "rmsnorm", "candidate in fp16 by mistake", "agent: test-model"},
    {"softmax-inconclusive", "softmax", "online softmax, one pass", "agent: test-model"},
    {"gelu-faster-cpu", "gelu", "tanh approximation %1 %2", "hand-written by A. Tester"},
};

QList<RecordOutcome> recordAll(const QString &root)
{
    QList<RecordOutcome> outcomes;
    QDateTime t = QDateTime::fromString(QStringLiteral("2026-12-02T10:00:00.000Z"), Qt::ISODateWithMs);
    int i = 0;
    for (const Entry &e : Entries) {
        RecordRequest request;
        request.root = root;
        request.target = QString::fromUtf8(e.target);
        request.verify = verifyResult(QString::fromUtf8(e.verify), root);
        request.note = QString::fromUtf8(e.note);
        request.who = QString::fromUtf8(e.who);
        request.recordedAt = t.addSecs(60 * i);
        request.id = QStringLiteral("a0000%1").arg(i++);
        outcomes.append(Recorder::record(request));
    }
    return outcomes;
}
} // namespace

class TestLeaderboard : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void golden()
    {
        QTemporaryDir root;
        recordAll(root.path());
        const QString golden = dataDir() + QStringLiteral("/LEADERBOARD.golden.md");
        const QByteArray actual = readAll(Recorder::leaderboardPath(root.path()));
        QVERIFY(!actual.isEmpty());
        if (qEnvironmentVariableIsSet("HOTKERNEL_UPDATE_GOLDEN"))
            QVERIFY(writeAll(golden, actual));
        const QByteArray expected = readAll(golden);
        if (actual != expected) {
            const QString saved = QDir::temp().filePath(QStringLiteral("LEADERBOARD.actual.md"));
            writeAll(saved, actual);
            const QString diff =
                LeaderboardCommand::difference(QString::fromUtf8(expected), QString::fromUtf8(actual),
                                               QStringLiteral("golden"), QStringLiteral("generated"));
            QFAIL(qPrintable(QStringLiteral("LEADERBOARD.md differs from %1 (actual saved to %2; set "
                                            "HOTKERNEL_UPDATE_GOLDEN=1 to accept it after reading it):\n%3")
                                 .arg(golden, saved, diff)));
        }
    }

    void regenerationIsByteIdentical()
    {
        QTemporaryDir root;
        recordAll(root.path());
        const QString path = Recorder::leaderboardPath(root.path());
        const QByteArray written = readAll(path);
        QVERIFY(QFile::remove(path));
        LeaderboardUpdate update = Recorder::regenerateLeaderboard(root.path());
        QVERIFY(update.changed);
        QCOMPARE(update.logCount, int(std::size(Entries)));
        QCOMPARE(readAll(path), written);
        update = Recorder::regenerateLeaderboard(root.path());
        QVERIFY(!update.changed);
        QCOMPARE(readAll(path), written);

        // The order logs arrive in does not matter.
        QList<ResultLog> logs = ResultLog::scan(root.path()).logs;
        std::mt19937 shuffle(7);
        for (int round = 0; round < 5; ++round) {
            std::shuffle(logs.begin(), logs.end(), shuffle);
            QCOMPARE(Leaderboard::generate(logs).toUtf8(), written);
        }
    }

    void bestAndBeats()
    {
        QTemporaryDir root;
        const QList<RecordOutcome> o = recordAll(root.path());
        // faster first result: beats (nothing before); slower / incorrect: never.
        QVERIFY(o[0].beatsBest);
        QVERIFY(!o[0].bestBefore);
        QVERIFY(!o[1].beatsBest);
        QCOMPARE(o[1].bestBefore->relativePath(), o[0].logPath);
        QVERIFY(!o[2].beatsBest); // lower candidate mean, but incorrect
        QVERIFY(o[3].beatsBest);  // faster and lower than 0.0310
        QCOMPARE(o[3].bestBefore->relativePath(), o[0].logPath);
        QCOMPARE(o[3].bestNow->relativePath(), o[3].logPath);
        QVERIFY(!o[4].beatsBest); // faster, but 0.0339 > 0.0275
        QCOMPARE(o[4].bestNow->relativePath(), o[3].logPath);
        QVERIFY(!o[5].beatsBest);  // invalid, and on another card
        QVERIFY(!o[5].bestBefore); // no faster rmsnorm result on the cpu yet
        QVERIFY(!o[6].beatsBest);  // inconclusive
        QVERIFY(o[7].beatsBest);   // first faster gelu on the cpu

        const QList<ResultLog> logs = ResultLog::scan(root.path()).logs;
        QCOMPARE(logs.size(), qsizetype(std::size(Entries)));
        const auto best = Leaderboard::best(logs, QStringLiteral("rmsnorm"), QStringLiteral("NVIDIA H200"));
        QVERIFY(best);
        QCOMPARE(best->relativePath(), o[3].logPath);
        QVERIFY(!Leaderboard::best(logs, QStringLiteral("rmsnorm"), QStringLiteral("cpu")));
        QVERIFY(!Leaderboard::best(logs, QStringLiteral("softmax"), QStringLiteral("NVIDIA H200")));
        QVERIFY(!Leaderboard::best(logs, QStringLiteral("gelu"), QStringLiteral("NVIDIA H200")));

        // A tie does not beat: it must be strictly lower.
        QVERIFY(!Leaderboard::beats(*best, best));
    }

    void cells()
    {
        QTemporaryDir root;
        recordAll(root.path());
        const QList<ResultLog> logs = ResultLog::scan(root.path()).logs;
        QStringList speedups;
        for (const ResultLog &log : logs)
            speedups.append(Leaderboard::speedupCell(log));
        // scan order: gelu, then rmsnorm by time, then softmax
        QCOMPARE(speedups,
                 (QStringList{QStringLiteral("1.20x"), QStringLiteral("1.20x"), QStringLiteral("no gain"),
                              QStringLiteral("incorrect"), QStringLiteral("1.35x"), QStringLiteral("1.10x"),
                              QStringLiteral("invalid"), QStringLiteral("no gain")}));
        QCOMPARE(Leaderboard::timeCell(0.0372, 0.0002), QStringLiteral("37.20 ± 0.20"));
        QCOMPARE(Leaderboard::timeCell(48.25, std::nullopt), QStringLiteral("48250.00"));
        QCOMPARE(Leaderboard::timeCell(std::nullopt, 0.1), QStringLiteral("-"));

        const QString text = Leaderboard::generate(logs);
        QVERIFY(text.contains(QStringLiteral("skipped the epsilon \\| oops, 100% wrong")));
        QVERIFY(text.contains(QStringLiteral("tanh approximation %1 %2"))); // not taken for placeholders
        QVERIFY(!text.contains(QStringLiteral("/tmp")));                    // no machine paths
    }

    // Issue 41's migration: a record made under an older protocol stays, marked older.
    void protocolColumnMarksOlderRecords()
    {
        QTemporaryDir root;
        recordAll(root.path());
        const QList<ResultLog> logs = ResultLog::scan(root.path()).logs;
        QVERIFY(!logs.isEmpty());
        Json now = logs.first().json();
        now["verify"]["contract"]["protocol"] = RunLineParser::kProtocol;
        QString error;
        const auto currentLog = ResultLog::fromJson(now, logs.first().relativePath(), &error);
        QVERIFY2(currentLog, qPrintable(error));
        const ResultLog &current = *currentLog;
        QCOMPARE(current.protocol(), std::optional<int>(RunLineParser::kProtocol));
        QCOMPARE(Leaderboard::protocolCell(current), QString::number(RunLineParser::kProtocol));
        Json older = current.json();
        older["verify"]["contract"]["protocol"] = 3;
        const auto olderLog = ResultLog::fromJson(older, current.relativePath(), &error);
        QVERIFY2(olderLog, qPrintable(error));
        QCOMPARE(Leaderboard::protocolCell(*olderLog), QStringLiteral("3 (older)"));
        QVERIFY(Leaderboard::generate({*olderLog}).contains(QStringLiteral("| 3 (older) |")));
        Json uncontracted = current.json();
        uncontracted["verify"].erase("contract");
        QCOMPARE(
            Leaderboard::protocolCell(*ResultLog::fromJson(uncontracted, current.relativePath(), &error)),
            QStringLiteral("-"));
    }

    void emptyBoardSaysSo()
    {
        const QString text = Leaderboard::generate({});
        QVERIFY(text.startsWith(QStringLiteral("# Leaderboard\n")));
        QVERIFY(text.contains(QStringLiteral("No results yet")));
        QVERIFY(text.contains(QStringLiteral("do not edit it by hand")));
        QCOMPARE(Leaderboard::generate({}), text);
    }

    void differenceIsReadable()
    {
        QCOMPARE(LeaderboardCommand::difference(QStringLiteral("a\nb\n"), QStringLiteral("a\nb\n")),
                 QString());
        const QString d =
            LeaderboardCommand::difference(QStringLiteral("a\nb\nc\n"), QStringLiteral("a\nB\nc\n"));
        QVERIFY2(d.contains(QStringLiteral("first difference at line 2")), qPrintable(d));
        QVERIFY2(d.contains(QStringLiteral("- b\n")) && d.contains(QStringLiteral("+ B\n")), qPrintable(d));
    }
};

QTEST_GUILESS_MAIN(TestLeaderboard)
#include "tst_leaderboard.moc"
