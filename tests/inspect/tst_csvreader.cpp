// SPDX-License-Identifier: Apache-2.0
#include "inspect/csvreader.h"

#include "fixtures.h"

#include <QTest>

using namespace hotkernel;

class TestCsvReader : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The RFC 4180 grammar itself: quoted separators, doubled quotes, line breaks inside quotes,
    // CRLF records, empty fields. (Grammar cases, not tool output; the captures follow.)
    void grammar()
    {
        const QByteArray text = "a,\"b,c\",\"say \"\"hi\"\"\"\r\n"
                                "\"two\nlines\",,x\n"
                                "\"void f<int, 2>(const char *, \"\"q\"\")\",last";
        CsvReader csv(text);
        QVERIFY(csv.readRow());
        QCOMPARE(csv.size(), 3);
        QCOMPARE(csv.text(0), QStringLiteral("a"));
        QCOMPARE(csv.text(1), QStringLiteral("b,c"));
        QCOMPARE(csv.text(2), QStringLiteral("say \"hi\""));
        QVERIFY(csv.readRow());
        QCOMPARE(csv.lineNumber(), 2);
        QCOMPARE(csv.text(0), QStringLiteral("two\nlines"));
        QCOMPARE(csv.text(1), QString());
        QCOMPARE(csv.text(2), QStringLiteral("x"));
        QVERIFY(csv.readRow());
        QCOMPARE(csv.lineNumber(), 4);
        QCOMPARE(csv.text(0), QStringLiteral("void f<int, 2>(const char *, \"q\")"));
        QCOMPARE(csv.text(1), QStringLiteral("last"));
        QVERIFY(!csv.readRow());
    }

    void realCaptures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("widest");
        // Counts from Python's csv module on the same files.
        QTest::newRow("templated details") << QStringLiteral("templated.ncu-details.csv") << 298 << 20;
        QTest::newRow("eager details") << QStringLiteral("eager.ncu-details.csv") << 637 << 20;
        QTest::newRow("eager raw") << QStringLiteral("eager.ncu-raw.csv") << 14 << 566;
        QTest::newRow("templated source") << QStringLiteral("templated.ncu-source-sass.csv") << 198 << 63;
    }
    void realCaptures()
    {
        QFETCH(QString, file);
        QFETCH(int, rows);
        QFETCH(int, widest);
        const QByteArray data = readInspectFixture(file);
        CsvReader csv(data);
        int count = 0;
        qsizetype most = 0;
        while (csv.readRow()) {
            ++count;
            most = std::max(most, csv.size());
        }
        QCOMPARE(count, rows);
        QCOMPARE(most, widest);
    }

    // A templated kernel name with commas inside a quoted field stays one field.
    void templatedNameIsOneField()
    {
        const QByteArray data = readInspectFixture(QStringLiteral("templated.ncu-details.csv"));
        CsvReader csv(data);
        QVERIFY(csv.readRow());
        QCOMPARE(csv.text(4), QStringLiteral("Kernel Name"));
        QVERIFY(csv.readRow());
        QCOMPARE(csv.text(4),
                 QStringLiteral("void scaled_add<float, 4, 113>(const T1 *, T1 *, Pair<T1, 2>, int)"));
        QCOMPARE(csv.text(7), QStringLiteral("(256, 1, 1)"));
    }
};

QTEST_GUILESS_MAIN(TestCsvReader)
#include "tst_csvreader.moc"
