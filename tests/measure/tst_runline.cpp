// SPDX-License-Identifier: Apache-2.0
#include "measure/runline.h"

#include <QTest>

using namespace hotkernel;

namespace {
// The fields the contract's lines carry; each case below changes one thing.
QByteArray goodLine(const QByteArray &replace = {}, const QByteArray &with = {})
{
    QByteArray line =
        R"({"protocol": 5, "ok": true, "ms": 0.0351, "timer": "graph", "samples_ms": [0.0351, 0.0352],)"
        R"( "run": 2, "target": "rmsnorm", "shape": [4096, 8192], "dtype": "bf16", "seed": 0,)"
        R"( "iters": 50, "rotate": ["x"], "rotate_k": 3, "flops": null, "bytes": 134217728,)"
        R"( "max_err": 0.0039, "device": "cuda", "target_sha256": "ab", "contract_sha256": "cd"})";
    if (!replace.isEmpty())
        line.replace(replace, with);
    return line;
}
} // namespace

class TestRunLine : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void good()
    {
        QString error;
        const auto line = RunLineParser::parseLine(goodLine(), QStringLiteral("x.py"), 2, &error);
        QVERIFY2(line, qPrintable(error));
        QVERIFY(line->ok);
        QCOMPARE(line->ms, 0.0351);
        QCOMPARE(line->run, 2);
        QCOMPARE(line->timer, QStringLiteral("graph"));
        QCOMPARE(line->samplesMs.size(), size_t(2));
        QCOMPARE(line->json["bytes"].get<long long>(), 134217728LL);
    }

    void okFalseIsALineNotAnError()
    {
        QString error;
        const auto line =
            RunLineParser::parseLine(goodLine(R"("ok": true)", R"("ok": false, "mismatch": "NaN in output")"),
                                     QStringLiteral("c.py"), 2, &error);
        QVERIFY2(line, qPrintable(error));
        QVERIFY(!line->ok);
        QCOMPARE(line->mismatch, QStringLiteral("NaN in output"));
        // A contract-level error with ms null is also a line that says ok false.
        const auto err =
            RunLineParser::parseLine(R"({"protocol": 5, "ok": false, "ms": null, "error": "bad target"})",
                                     QStringLiteral("c.py"), 0, &error);
        QVERIFY2(err, qPrintable(error));
        QCOMPARE(err->mismatch, QStringLiteral("bad target"));
    }

    void bad_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << QByteArray("  ") << QStringLiteral("empty line");
        QTest::newRow("not json") << QByteArray("Loading kernel...") << QStringLiteral("not JSON");
        QTest::newRow("truncated") << goodLine().left(40) << QStringLiteral("not JSON");
        QTest::newRow("array") << QByteArray("[1, 2]") << QStringLiteral("not an object");
        QTest::newRow("no protocol") << QByteArray(R"({"ok": true, "ms": 1})")
                                     << QStringLiteral("\"protocol\"");
        QTest::newRow("old protocol")
            << goodLine(R"("protocol": 5)", R"("protocol": 3)") << QStringLiteral("protocol 3");
        QTest::newRow("no ok") << goodLine(R"("ok": true, )", "") << QStringLiteral("\"ok\"");
        QTest::newRow("ok not bool") << goodLine(R"("ok": true)", R"("ok": 1)") << QStringLiteral("\"ok\"");
        QTest::newRow("no ms") << goodLine(R"("ms": 0.0351, )", "") << QStringLiteral("no \"ms\"");
        QTest::newRow("ms string") << goodLine(R"("ms": 0.0351)", R"("ms": "fast")")
                                   << QStringLiteral("finite number");
        QTest::newRow("ms zero") << goodLine(R"("ms": 0.0351)", R"("ms": 0)") << QStringLiteral("positive");
        QTest::newRow("ms negative") << goodLine(R"("ms": 0.0351)", R"("ms": -1.5)")
                                     << QStringLiteral("positive");
        QTest::newRow("wrong run") << goodLine(R"("run": 2)", R"("run": 5)")
                                   << QStringLiteral("run 5 instead");
        QTest::newRow("run not int") << goodLine(R"("run": 2)", R"("run": "2")") << QStringLiteral("\"run\"");
        QTest::newRow("samples not list")
            << goodLine(R"([0.0351, 0.0352])", "3") << QStringLiteral("samples_ms");
        QTest::newRow("sample negative")
            << goodLine(R"([0.0351, 0.0352])", "[-1]") << QStringLiteral("samples_ms");
        QTest::newRow("shape floats") << goodLine("[4096, 8192]", "[4096.5]") << QStringLiteral("shape");
        QTest::newRow("bytes string")
            << goodLine(R"("bytes": 134217728)", R"("bytes": "lots")") << QStringLiteral("bytes");
        QTest::newRow("ok with error")
            << goodLine(R"("ok": true)", R"("ok": true, "error": "x")") << QStringLiteral("error");
    }
    void bad()
    {
        QFETCH(QByteArray, line);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(!RunLineParser::parseLine(line, QStringLiteral("rmsnorm_candidate.py"), 2, &error));
        QVERIFY2(error.startsWith(QStringLiteral("rmsnorm_candidate.py run 2: ")), qPrintable(error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void wholeOutput()
    {
        QString error;
        QVERIFY(!RunLineParser::parseOutput("\n\n", QStringLiteral("b.py"), 4, &error));
        QVERIFY2(error.contains(QStringLiteral("b.py run 4: printed no JSON line")), qPrintable(error));
        const auto line = RunLineParser::parseOutput(goodLine(R"("run": 2)", R"("run": 4)") + "\n\n",
                                                     QStringLiteral("b.py"), 4, &error);
        QVERIFY2(line, qPrintable(error));
        QCOMPARE(line->run, 4);
    }

    void ready()
    {
        QString error;
        QVERIFY(RunLineParser::parseReady(R"({"event": "ready", "target": "x"})", QStringLiteral("b.py"),
                                          &error));
        QVERIFY(!RunLineParser::parseReady("importing torch", QStringLiteral("b.py"), &error));
        QVERIFY(error.contains(QStringLiteral("b.py --worker")));
        QVERIFY(!RunLineParser::parseReady(R"({"event": "failed", "error": "no fn"})", QStringLiteral("b.py"),
                                           &error));
        QVERIFY(error.contains(QStringLiteral("no fn")));
        // A worker of an older vendored contract is refused before its first run, with the way out.
        QVERIFY(!RunLineParser::parseReady(R"({"event": "ready", "protocol": 3, "target": "x"})",
                                           QStringLiteral("b.py"), &error));
        QVERIFY2(
            error.contains(QStringLiteral("protocol 3")) &&
                error.contains(QStringLiteral("--force` in the same folder (it keeps NAME_candidate.py")),
            qPrintable(error));
    }

    void identity()
    {
        const Json b = Json::parse(goodLine().toStdString());
        Json c = b;
        QVERIFY(RunLineParser::identityMismatches(b, c).isEmpty());
        c["ms"] = 1.0; // not an identity field
        c["timer"] = "events";
        QVERIFY(RunLineParser::identityMismatches(b, c).isEmpty());
        c["dtype"] = "fp16";
        c["shape"] = Json::array({4096, 4096});
        const QStringList m = RunLineParser::identityMismatches(b, c);
        QCOMPARE(m.size(), 2);
        QVERIFY(m.contains(QStringLiteral("dtype: baseline \"bf16\", candidate \"fp16\"")));
        c = b;
        c.erase("contract_sha256"); // absent differs from present
        QCOMPARE(RunLineParser::identityMismatches(b, c).size(), 1);
        c = b;
        c["bytes"] = 134217728.0; // same number written as a float
        QVERIFY(RunLineParser::identityMismatches(b, c).isEmpty());
        // A side that claims more calls per replay than the other divides its GPU time by more.
        c = b;
        c["calls"] = 100;
        QCOMPARE(RunLineParser::identityMismatches(b, c).size(), 1);
    }

    void blockCalls()
    {
        // Protocol 5's lines say how many calls a timed replay made; older ones only iters.
        QCOMPARE(RunLineParser::blockCalls(Json{{"iters", 50}, {"calls", 16}}), 16LL);
        QCOMPARE(RunLineParser::blockCalls(Json{{"iters", 50}}), 50LL);
        QCOMPARE(RunLineParser::blockCalls(Json{{"iters", 50}, {"calls", 0}}), 50LL);
        QCOMPARE(RunLineParser::blockCalls(Json{{"iters", "50"}}), 0LL);
    }
};

QTEST_GUILESS_MAIN(TestRunLine)
#include "tst_runline.moc"
