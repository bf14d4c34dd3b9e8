// SPDX-License-Identifier: Apache-2.0
#include "session/schemavalidator.h"

#include <QTest>

using namespace hotkernel;

class TestSchemaValidator : public QObject
{
    Q_OBJECT
private:
    const Json schema = Json::parse(R"({
        "type": "object", "additionalProperties": false, "required": ["script"],
        "properties": {
            "script": {"type": "string", "minLength": 1},
            "n": {"type": "integer", "minimum": 1, "default": 7},
            "rule": {"type": "string", "enum": ["welch", "seed"]},
            "extra": {"type": "array", "items": {"type": "string"}}
        }})");

private Q_SLOTS:
    void validate_data()
    {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("expectedProblem"); // substring; empty = valid
        QTest::newRow("minimal") << R"({"script": "a.py"})"
                                 << "";
        QTest::newRow("all") << R"({"script": "a.py", "n": 3, "rule": "seed", "extra": ["w:8"]})"
                             << "";
        QTest::newRow("integral float is an integer") << R"({"script": "a.py", "n": 3.0})"
                                                      << "";
        QTest::newRow("missing required") << R"({})"
                                          << "arguments.script is required";
        QTest::newRow("wrong type") << R"({"script": 5})"
                                    << "arguments.script must be string, not an integer";
        QTest::newRow("fraction for integer") << R"({"script": "a", "n": 2.5})"
                                              << "arguments.n must be integer";
        QTest::newRow("below minimum") << R"({"script": "a", "n": 0})"
                                       << "arguments.n must be at least 1";
        QTest::newRow("enum") << R"({"script": "a", "rule": "t"})"
                              << "must be one of";
        QTest::newRow("unknown property") << R"({"script": "a", "bogus": 1})"
                                          << "no property 'bogus'";
        QTest::newRow("array item") << R"({"script": "a", "extra": [1]})"
                                    << "arguments.extra[0] must be string";
        QTest::newRow("empty string") << R"({"script": ""})"
                                      << "must not be empty";
        QTest::newRow("not an object") << R"([1])"
                                       << "arguments must be object";
    }
    void validate()
    {
        QFETCH(QString, arguments);
        QFETCH(QString, expectedProblem);
        const QString problem = SchemaValidator::validate(schema, Json::parse(arguments.toStdString()));
        if (expectedProblem.isEmpty())
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        else
            QVERIFY2(problem.contains(expectedProblem), qPrintable(problem));
    }
    void defaultsFillOnlyMissing()
    {
        const Json filled = SchemaValidator::withDefaults(schema, Json{{"script", "a.py"}});
        QCOMPARE(filled.value("n", 0), 7);
        const Json kept = SchemaValidator::withDefaults(schema, Json{{"script", "a.py"}, {"n", 3}});
        QCOMPARE(kept.value("n", 0), 3);
    }
};

QTEST_GUILESS_MAIN(TestSchemaValidator)
#include "tst_schemavalidator.moc"
