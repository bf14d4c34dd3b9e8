// SPDX-License-Identifier: Apache-2.0
#include "base/usererror.h"
#include "record/recorder.h"
#include "recordtestdata.h"
#include "testlimits.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <unistd.h>

using namespace hotkernel;
using namespace hotkernel::recordtest;

// QCOMPARE cannot print nlohmann values (and trips over their conversions): compare and dump.
#define JSON_COMPARE(actual, expected) QVERIFY2(Json(actual) == Json(expected), Json(actual).dump().c_str())

namespace {
constexpr const char *RecordChild = "--record-child";

RecordRequest request(const QString &root, const QString &verifyName = QStringLiteral("rmsnorm-faster"))
{
    RecordRequest r;
    r.root = root;
    r.target = QStringLiteral("rmsnorm");
    r.verify = verifyResult(verifyName, root);
    r.note = QStringLiteral("one row per program");
    r.who = QStringLiteral("agent: test-model");
    return r;
}

// Every entry under results/, dot files included: a failed record must leave none of them.
QStringList everythingUnder(const QString &dir)
{
    QStringList out;
    const QFileInfoList entries =
        QDir(dir).entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo &info : entries) {
        out.append(info.fileName());
        if (info.isDir())
            for (const QString &inner : everythingUnder(info.filePath()))
                out.append(info.fileName() + QLatin1Char('/') + inner);
    }
    return out;
}

int boardRows(const QString &root)
{
    int rows = 0;
    for (const QByteArray &line : readAll(Recorder::leaderboardPath(root)).split('\n'))
        rows += line.startsWith("| 20") ? 1 : 0;
    return rows;
}
} // namespace

class TestRecorder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void logKeepsWhatReproducesTheResult()
    {
        QTemporaryDir root;
        const RecordRequest r = request(root.path());
        const RecordOutcome o = Recorder::record(r);
        QVERIFY2(
            QRegularExpression(QStringLiteral("^results/rmsnorm/\\d{8}T\\d{6}\\.\\d{3}Z-[0-9a-f]{6}\\.json$"))
                .match(o.logPath)
                .hasMatch(),
            qPrintable(o.logPath));
        QCOMPARE(o.absoluteLogPath, QDir(root.path()).filePath(o.logPath));
        const auto log = parseJson(readAll(o.absoluteLogPath));
        QVERIFY(log);
        const Json &j = *log;
        JSON_COMPARE(j["kind"], "hotkernel-result-log");
        JSON_COMPARE(j["target"], "rmsnorm");
        JSON_COMPARE(j["note"], "one row per program");
        JSON_COMPARE(j["who"], "agent: test-model");
        JSON_COMPARE(j["hotkernel_version"], HOTKERNEL_VERSION);
        JSON_COMPARE(j["card"], "NVIDIA H200");
        QVERIFY(
            QDateTime::fromString(toQt(j["recorded_at"].get<std::string>()), Qt::ISODateWithMs).isValid());
        JSON_COMPARE(j["verify"], r.verify); // as given, unchanged
        for (const char *role : {"baseline", "candidate"}) {
            const Json &s = j["scripts"][role];
            const QByteArray source = readAll(toQt(r.verify[std::string(role) + "_path"].get<std::string>()));
            QCOMPARE(QByteArray::fromStdString(s["source"].get<std::string>()), source);
            const QString sha =
                QString::fromLatin1(QCryptographicHash::hash(source, QCryptographicHash::Sha256).toHex());
            QCOMPARE(toQt(s["sha256"].get<std::string>()), sha);
            JSON_COMPARE(s["verify_sha256"], r.verify[std::string(role) + "_sha256"]);
            JSON_COMPARE(s["changed_since_verify"], false);
        }
        JSON_COMPARE(j["interpreter"]["path"], "/usr/bin/python3");
        JSON_COMPARE(j["versions"]["torch"], "2.11.0");
        JSON_COMPARE(j["versions"]["triton"], "3.6.0");
        JSON_COMPARE(j["versions"]["cuda"], "13.0");
        JSON_COMPARE(j["gpu_at_verify"]["sm_clock_mhz"], 1980);
        JSON_COMPARE(j["gpu_at_verify"]["mem_clock_mhz"], 3201);
        JSON_COMPARE(j["gpu_at_verify"]["temperature_c"], 41);
        QVERIFY(j["gpu_at_verify"]["throttle_reasons"].is_array());
        JSON_COMPARE(j["gpu_at_verify"]["power_limit_w"], 700.0);
        QVERIFY(o.beatsBest);
        QCOMPARE(boardRows(root.path()), 1);
    }

    void scriptChangedSinceVerifyIsRefused()
    {
        QTemporaryDir root;
        const RecordRequest r = request(root.path());
        QFile candidate(toQt(r.verify["candidate_path"].get<std::string>()));
        QVERIFY(candidate.open(QIODevice::Append));
        candidate.write("# one more line\n");
        candidate.close();
        try {
            Recorder::record(r);
            QFAIL("a changed candidate was recorded");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("changed since verify")), qPrintable(e.message()));
            QVERIFY2(e.message().contains(QStringLiteral("re-run verify")), qPrintable(e.message()));
        }
        QVERIFY(!QFileInfo::exists(root.filePath(QStringLiteral("results"))));
        QVERIFY(!QFileInfo::exists(Recorder::leaderboardPath(root.path())));
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("slash") << "target"
                               << "a/b"
                               << "path separator";
        QTest::newRow("dotdot") << "target"
                                << ".."
                                << "'..'";
        QTest::newRow("control") << "target"
                                 << "rms\nnorm"
                                 << "control character";
        QTest::newRow("empty target") << "target"
                                      << ""
                                      << "empty";
        QTest::newRow("other target") << "target"
                                      << "softmax"
                                      << "record it as rmsnorm";
        QTest::newRow("no note") << "note"
                                 << "  "
                                 << "note is missing";
        QTest::newRow("two-line note") << "note"
                                       << "a\nb"
                                       << "one line";
        QTest::newRow("no who") << "who"
                                << ""
                                << "who is missing";
        // Issue 39: a length limit on each (counted once invisible characters are gone).
        QTest::newRow("long note") << "note" << QString(kNoteLimit + 1, QLatin1Char('n'))
                                   << "a note holds at most 2000";
        QTest::newRow("long who") << "who" << QString(kWhoLimit + 1, QLatin1Char('w'))
                                  << "it holds at most 200";
        QTest::newRow("zero-width note")
            << "note" << QStringLiteral("\u200B\u2060\uFEFF") << "note is missing";
        QTest::newRow("not verify") << "verify"
                                    << R"({"tool": "bench", "verdict": "faster"})"
                                    << "not of verify";
        QTest::newRow("verify error") << "verify"
                                      << R"({"error": "baseline exited 1"})"
                                      << "failed verify";
        QTest::newRow("no verdict") << "verify"
                                    << R"({"tool": "verify"})"
                                    << "no \"verdict\"";
        QTest::newRow("bad verdict") << "verify"
                                     << R"({"tool": "verify", "verdict": "great"})"
                                     << "not one of";
        QTest::newRow("not object") << "verify"
                                    << "[1, 2]"
                                    << "not a JSON object";
    }

    void badInput()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        QTemporaryDir root;
        RecordRequest r = request(root.path());
        if (field == QLatin1String("target"))
            r.target = value;
        else if (field == QLatin1String("note"))
            r.note = value;
        else if (field == QLatin1String("who"))
            r.who = value;
        else
            r.verify = *parseJson(value.toUtf8());
        try {
            Recorder::record(r);
            QFAIL("bad input was recorded");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(expected), qPrintable(e.message()));
        }
        QVERIFY(!QFileInfo::exists(root.filePath(QStringLiteral("results"))));
    }

    // Zero-width characters that join nothing are dropped from note and who (issue 39); the
    // joiners that scripts need stay; a note of exactly the limit is taken.
    void zeroWidthCharactersAreDropped()
    {
        QTemporaryDir root;
        RecordRequest r = request(root.path());
        r.note = QStringLiteral("fa\u200Bst\u2060er \u200D\uFEFFloads") +
                 QString(kNoteLimit - 16, QLatin1Char('.'));
        r.who = QStringLiteral("agent:\u200B model");
        const RecordOutcome o = Recorder::record(r);
        const auto log = parseJson(readAll(o.absoluteLogPath));
        QVERIFY(log);
        const QString note = toQt((*log)["note"].get<std::string>());
        QVERIFY2(note.startsWith(QStringLiteral("faster \u200Dloads")), qPrintable(note));
        QCOMPARE(note.size(), kNoteLimit - 16 + 13);
        JSON_COMPARE((*log)["who"], "agent: model");
        r.note = QString(kNoteLimit, QLatin1Char('n'));
        Recorder::record(r); // exactly the limit
    }

    void failedRenameLeavesNothing()
    {
        QTemporaryDir root;
        RecordRequest r = request(root.path());
        QString temporary;
        r.beforeRename = [&temporary](const QString &path) {
            temporary = path;
            QVERIFY(QFileInfo(path).size() > 0); // the bytes were there before the failure
            throw UserError(QStringLiteral("simulated failure before rename"));
        };
        QVERIFY_THROWS_EXCEPTION(UserError, Recorder::record(r));
        QVERIFY(!temporary.isEmpty());
        QVERIFY(!QFileInfo::exists(temporary));
        QCOMPARE(everythingUnder(root.filePath(QStringLiteral("results"))),
                 QStringList{QStringLiteral("rmsnorm")});
        QVERIFY(!QFileInfo::exists(Recorder::leaderboardPath(root.path())));
    }

    void unwritableResultsLeaveNothing()
    {
        QTemporaryDir root;
        RecordRequest r = request(root.path());
        // A file where the target's directory should be: nothing can be created there.
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("results")));
        QVERIFY(writeAll(root.filePath(QStringLiteral("results/rmsnorm")), "not a directory"));
        try {
            Recorder::record(r);
            QFAIL("recorded into a file");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("cannot create")), qPrintable(e.message()));
        }
        QCOMPARE(everythingUnder(root.filePath(QStringLiteral("results"))),
                 QStringList{QStringLiteral("rmsnorm")});
        QCOMPARE(readAll(root.filePath(QStringLiteral("results/rmsnorm"))), QByteArray("not a directory"));

        if (::geteuid() == 0)
            QSKIP("running as root, which writes into read-only directories: the read-only case needs "
                  "another user");
        QVERIFY(QFile::remove(root.filePath(QStringLiteral("results/rmsnorm"))));
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("results/rmsnorm")));
        QVERIFY(QFile::setPermissions(root.filePath(QStringLiteral("results/rmsnorm")),
                                      QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        try {
            Recorder::record(r);
            QFAIL("recorded into a read-only directory");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("writable")), qPrintable(e.message()));
        }
        QFile::setPermissions(root.filePath(QStringLiteral("results/rmsnorm")),
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QCOMPARE(everythingUnder(root.filePath(QStringLiteral("results"))),
                 QStringList{QStringLiteral("rmsnorm")});
    }

    void sameMillisecondSameIdBothKept()
    {
        QTemporaryDir root;
        RecordRequest r = request(root.path());
        r.recordedAt = QDateTime::fromString(QStringLiteral("2026-12-02T10:00:00.123Z"), Qt::ISODateWithMs);
        r.id = QStringLiteral("abcdef");
        const RecordOutcome first = Recorder::record(r);
        r.note = QStringLiteral("the second one");
        const RecordOutcome second = Recorder::record(r);
        QCOMPARE(first.logPath, QStringLiteral("results/rmsnorm/20261202T100000.123Z-abcdef.json"));
        QVERIFY(second.logPath != first.logPath);
        QVERIFY(second.logPath.startsWith(QStringLiteral("results/rmsnorm/20261202T100000.123Z-")));
        JSON_COMPARE(parseJson(readAll(first.absoluteLogPath))->value("note", std::string()),
                     "one row per program");
        JSON_COMPARE(parseJson(readAll(second.absoluteLogPath))->value("note", std::string()),
                     "the second one");
        QCOMPARE(second.leaderboard.logCount, 2);
        QCOMPARE(boardRows(root.path()), 2);
        QVERIFY(first.beatsBest);
        QVERIFY(!second.beatsBest); // equal, not lower
    }

    void concurrentProcessesLoseNothing()
    {
        QTemporaryDir root;
        // Copies the scripts once, before the children read them.
        QVERIFY(!verifyResult(QStringLiteral("rmsnorm-faster"), root.path()).is_null());
        constexpr int Count = 6;
        std::vector<std::unique_ptr<QProcess>> processes;
        for (int i = 0; i < Count; ++i) {
            auto p = std::make_unique<QProcess>();
            p->setWorkingDirectory(root.path());
            p->setProcessChannelMode(QProcess::MergedChannels);
            // Processes that each call Recorder::record (the binary records only a verify it ran
            // itself, so this test binary stands in for it: see main below).
            p->start(QCoreApplication::applicationFilePath(),
                     {QString::fromLatin1(RecordChild), root.path(), QStringLiteral("process %1").arg(i)});
            processes.push_back(std::move(p));
        }
        for (auto &p : processes) {
            QVERIFY(p->waitForFinished(hotkernel::test::kEventLimitMs));
            QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0, p->readAll().constData());
        }
        const ResultLog::Scan scan = ResultLog::scan(root.path());
        QCOMPARE(scan.logs.size(), qsizetype(Count));
        QVERIFY(scan.warnings.isEmpty());
        QStringList notes;
        for (const ResultLog &log : scan.logs)
            notes.append(log.note());
        notes.sort();
        for (int i = 0; i < Count; ++i)
            QCOMPARE(notes.at(i), QStringLiteral("process %1").arg(i));
        // The board written last lists every log.
        QCOMPARE(boardRows(root.path()), Count);
        QCOMPARE(readAll(Recorder::leaderboardPath(root.path())),
                 Recorder::leaderboardText(root.path()).toUtf8());
        QVERIFY(!everythingUnder(root.filePath(QStringLiteral("results/rmsnorm")))
                     .join(QLatin1Char(' '))
                     .contains(QStringLiteral(".part")));
    }

    void unreadableLogsAreSkippedWithAWarning()
    {
        QTemporaryDir root;
        const RecordOutcome o = Recorder::record(request(root.path()));
        QVERIFY(writeAll(root.filePath(QStringLiteral("results/rmsnorm/broken.json")),
                         "{\"kind\": \"hotkernel-res"));
        QVERIFY(writeAll(root.filePath(QStringLiteral("results/rmsnorm/empty.json")), ""));
        QVERIFY(writeAll(root.filePath(QStringLiteral("results/rmsnorm/partial.json")),
                         R"({"kind": "hotkernel-result-log", "format_version": 1})"));
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("results/calibration")));
        QVERIFY(writeAll(root.filePath(QStringLiteral("results/calibration/h200.json")),
                         R"({"copy_gbps": 4140})"));
        QVERIFY(writeAll(root.filePath(QStringLiteral("results/calibration/run.json")),
                         R"({"kind": "calibration"})"));
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("results/rmsnorm/dir.json")));

        const ResultLog::Scan scan = ResultLog::scan(root.path());
        QCOMPARE(scan.logs.size(), 1);
        QCOMPARE(scan.logs.first().relativePath(), o.logPath);
        QCOMPARE(scan.ignored, 2);
        QCOMPARE(scan.warnings.size(), 3);
        QVERIFY(
            scan.warnings.at(0).startsWith(QStringLiteral("results/rmsnorm/broken.json: not valid JSON")));
        QVERIFY(scan.warnings.at(1).startsWith(QStringLiteral("results/rmsnorm/empty.json:")));
        QVERIFY(scan.warnings.at(2).startsWith(QStringLiteral("results/rmsnorm/partial.json:")));

        // Recording and regenerating go on around them.
        const RecordOutcome next =
            Recorder::record(request(root.path(), QStringLiteral("rmsnorm-faster-best")));
        QCOMPARE(next.leaderboard.logCount, 2);
        QCOMPARE(next.leaderboard.warnings.size(), 3);
        QVERIFY(next.beatsBest);
        QCOMPARE(boardRows(root.path()), 2);
    }
};

// `tst_recorder --record-child ROOT NOTE` records once into ROOT and exits: the processes of
// concurrentProcessesLoseNothing.
int main(int argc, char **argv)
{
    if (argc == 4 && qstrcmp(argv[1], RecordChild) == 0) {
        QCoreApplication app(argc, argv);
        RecordRequest r = request(QString::fromLocal8Bit(argv[2]));
        r.note = QString::fromLocal8Bit(argv[3]);
        try {
            Recorder::record(r);
        } catch (const UserError &e) {
            std::fprintf(stderr, "%s\n", qPrintable(e.message()));
            return 1;
        }
        return 0;
    }
    QCoreApplication app(argc, argv);
    TestRecorder test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_recorder.moc"
