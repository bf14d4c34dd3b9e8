// SPDX-License-Identifier: Apache-2.0
#include "recordtestdata.h"
#include "session/schemavalidator.h"
#include "session/session.h"
#include "testlimits.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;
using namespace hotkernel::recordtest;

// QCOMPARE cannot print nlohmann values (and trips over their conversions): compare and dump.
#define JSON_COMPARE(actual, expected) QVERIFY2(Json(actual) == Json(expected), Json(actual).dump().c_str())

namespace {
ToolResult call(Session &session, const Json &arguments)
{
    Job *job = session.start(QStringLiteral("record"), arguments, QStringLiteral("test"));
    QPointer<Job> guard(job);
    QDeadlineTimer deadline(hotkernel::test::kEventLimitMs);
    while (guard && guard->state() == Job::State::Running && !deadline.hasExpired())
        QTest::qWait(5);
    return guard ? guard->result() : ToolResult::error(QStringLiteral("job vanished"));
}

Json arguments(const Json &verify, const char *note = "one row per program")
{
    return Json{
        {"target", "rmsnorm"}, {"verify_result", verify}, {"note", note}, {"who", "agent: test-model"}};
}
} // namespace

class TestRecordTool : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void recordsAndLinksTheLog()
    {
        QTemporaryDir root;
        Session session(SessionOptions{root.path(), {}, 500});
        const ToolSpec *spec = session.tools().find(QStringLiteral("record"));
        QVERIFY(spec);
        QCOMPARE(spec->cliPositionals,
                 (QStringList{QStringLiteral("target"), QStringLiteral("verify_result")}));

        // An object.
        ToolResult first =
            call(session, arguments(verifyResult(QStringLiteral("rmsnorm-faster"), root.path())));
        QVERIFY2(!first.isError, qPrintable(first.text));
        QCOMPARE(SchemaValidator::validate(spec->outputSchema, first.structured), QString());
        const QString log = toQt(first.structured["log"].get<std::string>());
        QVERIFY(QFileInfo::exists(root.filePath(log)));
        JSON_COMPARE(first.structured["beats_best"], true);
        JSON_COMPARE(first.structured["best_before"], nullptr);
        JSON_COMPARE(first.structured["card"], "NVIDIA H200");
        JSON_COMPARE(first.structured["leaderboard"], "LEADERBOARD.md");
        QCOMPARE(first.resourceLinks, (QStringList{QStringLiteral("hotkernel://") + log,
                                                   QStringLiteral("hotkernel://LEADERBOARD.md")}));
        QVERIFY2(first.text.contains(QStringLiteral("recorded ") + log), qPrintable(first.text));
        QVERIFY2(first.text.contains(QStringLiteral("beats the best so far")), qPrintable(first.text));

        // A path (relative to the working directory) to a saved verify result.
        const Json better = verifyResult(QStringLiteral("rmsnorm-faster-best"), root.path());
        QVERIFY(writeAll(root.filePath(QStringLiteral("verify.json")),
                         QByteArray::fromStdString(better.dump(2))));
        ToolResult second = call(session, arguments(Json("verify.json"), "vectorised loads"));
        QVERIFY2(!second.isError, qPrintable(second.text));
        QCOMPARE(SchemaValidator::validate(spec->outputSchema, second.structured), QString());
        JSON_COMPARE(second.structured["beats_best"], true);
        QCOMPARE(toQt(second.structured["best_before"]["log"].get<std::string>()), log);
        JSON_COMPARE(second.structured["results_count"], 2);

        // A slower one does not beat it and says what the best is.
        ToolResult third =
            call(session, arguments(verifyResult(QStringLiteral("rmsnorm-slower"), root.path())));
        QVERIFY2(!third.isError, qPrintable(third.text));
        JSON_COMPARE(third.structured["beats_best"], false);
        JSON_COMPARE(third.structured["best"]["log"], second.structured["log"]);
        QVERIFY2(third.text.contains(QStringLiteral("does not beat the best so far")),
                 qPrintable(third.text));
    }

    void clearErrors_data()
    {
        QTest::addColumn<QByteArray>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bad target")
            << QByteArray(R"({"target": "../x", "verify_result": {}, "note": "n", "who": "w"})")
            << "path separator";
        QTest::newRow("missing note")
            << QByteArray(R"({"target": "rmsnorm", "verify_result": {}, "who": "w"})") << "note";
        QTest::newRow("missing who") << QByteArray(
                                            R"({"target": "rmsnorm", "verify_result": {}, "note": "n"})")
                                     << "who";
        QTest::newRow("no such file")
            << QByteArray(R"({"target": "rmsnorm", "verify_result": "nope.json", "note": "n", "who": "w"})")
            << "cannot read the verify result";
        QTest::newRow("not json")
            << QByteArray(R"({"target": "rmsnorm", "verify_result": "garbage.txt", "note": "n", "who": "w"})")
            << "is not JSON";
        QTest::newRow("not a verify result")
            << QByteArray(R"({"target": "rmsnorm", "verify_result": {"a": 1}, "note": "n", "who": "w"})")
            << "not usable";
        QTest::newRow("a number")
            << QByteArray(R"({"target": "rmsnorm", "verify_result": 3, "note": "n", "who": "w"})")
            << "verify_result";
    }

    void clearErrors()
    {
        QFETCH(QByteArray, args);
        QFETCH(QString, expected);
        QTemporaryDir root;
        QVERIFY(writeAll(root.filePath(QStringLiteral("garbage.txt")), "hello"));
        Session session(SessionOptions{root.path(), {}, 500});
        const ToolResult result = call(session, *parseJson(args));
        QVERIFY(result.isError);
        QVERIFY2(result.text.contains(expected), qPrintable(result.text));
        QVERIFY(!QFileInfo::exists(root.filePath(QStringLiteral("results"))));
    }

    void fromTheCommandLine()
    {
        QTemporaryDir root;
        const Json verify = verifyResult(QStringLiteral("rmsnorm-faster"), root.path());
        QVERIFY(writeAll(root.filePath(QStringLiteral("verify.json")),
                         QByteArray::fromStdString(verify.dump(2))));
        QProcess p;
        p.setWorkingDirectory(root.path());
        p.start(QStringLiteral(HOTKERNEL_BINARY),
                {QStringLiteral("record"), QStringLiteral("rmsnorm"), QStringLiteral("verify.json"),
                 QStringLiteral("--note"), QStringLiteral("first"), QStringLiteral("--who"),
                 QStringLiteral("agent: test-model")});
        QVERIFY(p.waitForFinished(hotkernel::test::kEventLimitMs));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(p.exitCode() == 0, qPrintable(out + QString::fromUtf8(p.readAllStandardError())));
        QVERIFY2(out.contains(QStringLiteral("recorded results/rmsnorm/")), qPrintable(out));

        p.start(QStringLiteral(HOTKERNEL_BINARY),
                {QStringLiteral("record"), QStringLiteral("rmsnorm"), QStringLiteral("verify.json"),
                 QStringLiteral("--note"), QStringLiteral("no who")});
        QVERIFY(p.waitForFinished(hotkernel::test::kEventLimitMs));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("missing --who")));
    }
};

QTEST_GUILESS_MAIN(TestRecordTool)
#include "tst_recordtool.moc"
