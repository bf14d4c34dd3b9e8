// SPDX-License-Identifier: Apache-2.0
#include "base/usererror.h"
#include "session/cliarguments.h"

#include <QTest>

using namespace hotkernel;

class TestCliArguments : public QObject
{
    Q_OBJECT
private:
    ToolSpec spec() const
    {
        ToolSpec s;
        s.name = QStringLiteral("verify");
        s.cliVerb = QStringLiteral("verify");
        s.cliPositionals = {QStringLiteral("baseline"), QStringLiteral("candidate")};
        s.inputSchema =
            Json::parse(R"({"type": "object", "required": ["baseline", "candidate"], "properties": {
            "baseline": {"type": "string", "description": "baseline script"},
            "candidate": {"type": "string", "description": "candidate script"},
            "n": {"type": "integer", "description": "runs"},
            "min_effect": {"type": "number", "description": "smallest effect"},
            "fresh": {"type": "boolean", "description": "process per run"},
            "extra": {"type": "array", "items": {"type": "string"}, "description": "inputs"}}})");
        return s;
    }

private Q_SLOTS:
    void positionalsAndFlags()
    {
        const Json args = CliArguments::parse(
            spec(),
            {QStringLiteral("b.py"), QStringLiteral("c.py"), QStringLiteral("-n"), QStringLiteral("5"),
             QStringLiteral("--min-effect=0.02"), QStringLiteral("--fresh"), QStringLiteral("--extra"),
             QStringLiteral("w:8,b:8"), QStringLiteral("--extra"), QStringLiteral("c:4")});
        QCOMPARE(args["baseline"].get<std::string>(), "b.py");
        QCOMPARE(args["candidate"].get<std::string>(), "c.py");
        QCOMPARE(args["n"].get<int>(), 5);
        QCOMPARE(args["min_effect"].get<double>(), 0.02);
        QCOMPARE(args["fresh"].get<bool>(), true);
        QCOMPARE(args["extra"].size(), size_t(3));
        QCOMPARE(args["extra"][2].get<std::string>(), "c:4");
    }
    void doubleDashPassesTheCommandThrough()
    {
        ToolSpec s;
        s.name = QStringLiteral("profile");
        s.cliVerb = QStringLiteral("profile");
        s.cliPositionals = {QStringLiteral("command")};
        s.inputSchema = Json::parse(R"({"type": "object", "required": ["command"], "properties": {
            "command": {"type": "array", "items": {"type": "string"}, "description": "what to run"},
            "launch_count": {"type": "integer", "description": "launches"}}})");
        const Json args = CliArguments::parse(s, {QStringLiteral("--launch-count"), QStringLiteral("2"),
                                                  QStringLiteral("--"), QStringLiteral("python3"),
                                                  QStringLiteral("train.py"), QStringLiteral("--steps"),
                                                  QStringLiteral("1,2"), QStringLiteral("--")});
        QCOMPARE(args["launch_count"].get<int>(), 2);
        const Json expected = Json::array({"python3", "train.py", "--steps", "1,2", "--"});
        QVERIFY2(args["command"] == expected, args["command"].dump().c_str());
        // Without "--", an option-looking word is still an option: the error names it.
        QVERIFY_THROWS_EXCEPTION(
            UserError, CliArguments::parse(s, {QStringLiteral("python3"), QStringLiteral("--steps")}));
    }
    void negatedBoolean()
    {
        const Json args = CliArguments::parse(
            spec(), {QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("--no-fresh")});
        QCOMPARE(args["fresh"].get<bool>(), false);
    }
    void errorsNameTheProblem_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not a number") << QStringList{QStringLiteral("b"), QStringLiteral("c"),
                                                     QStringLiteral("-n"), QStringLiteral("seven")}
                                      << "-n takes a whole number, not 'seven'";
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("--bogus")}
            << "unknown option '--bogus'";
        QTest::newRow("missing value")
            << QStringList{QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("-n")}
            << "-n needs a value";
        QTest::newRow("missing positional") << QStringList{QStringLiteral("b")} << "missing CANDIDATE";
        QTest::newRow("too many") << QStringList{QStringLiteral("b"), QStringLiteral("c"),
                                                 QStringLiteral("d")}
                                  << "unexpected argument 'd'";
    }
    void errorsNameTheProblem()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        try {
            CliArguments::parse(spec(), arguments);
            QFAIL("no error");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(expected), qPrintable(e.message()));
            QVERIFY2(e.message().contains(QStringLiteral("usage: hotkernel verify BASELINE CANDIDATE")),
                     qPrintable(e.message()));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliArguments)
#include "tst_cliarguments.moc"
