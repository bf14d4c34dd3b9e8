// SPDX-License-Identifier: Apache-2.0
#include "inspect/hotinstructions.h"
#include "inspect/ncusourceparser.h"
#include "inspect/sassparser.h"

#include "fixtures.h"
#include "golden.h"
#include "parsertext.h"

#include <QTest>

using namespace hotkernel;

class TestHotInstructions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Three profiled launches of one templated kernel; ncu names it with casts: "(int)4, (char)113".
    void sourcePage()
    {
        const auto reports =
            NcuSourceParser::parse(readInspectFixture(QStringLiteral("templated.ncu-source-sass.csv")));
        QCOMPARE(reports.size(), size_t(1));
        const SourceReport &r = reports[0];
        QCOMPARE(r.kernelName,
                 QStringLiteral(
                     "void scaled_add<float, (int)4, (char)113>(const T1 *, T1 *, Pair<T1, (int)2>, int)"));
        QCOMPARE(r.launches, 3);
        QCOMPARE(r.rows.size(), size_t(64));
        QCOMPARE(r.totalSamples, qint64(85312));
        QCOMPARE(r.rows[0].source, QStringLiteral("LDC R1, c[0x0][0x28]"));
    }

    void attachTemplated()
    {
        auto functions = SassParser::parseSass(readInspectFixture(QStringLiteral("templated.nvdisasm.txt")));
        const auto reports =
            NcuSourceParser::parse(readInspectFixture(QStringLiteral("templated.ncu-source-sass.csv")));
        SassFunction &f = functions[0];
        const SourceReport *report = HotInstructions::pick(reports, f);
        QVERIFY(report);
        const AttachSummary s = HotInstructions::attach(f, *report, 3);
        QCOMPARE(s.matched, 64);
        QCOMPARE(s.unmatched, 0);
        QCOMPARE(s.opcodeMismatches, 0);
        QCOMPARE(s.totalSamples, qint64(85312));
        QCOMPARE(s.topStallReasons.size(), size_t(3));
        QCOMPARE(s.topStallReasons[0].first, QStringLiteral("long_sb"));
        QCOMPARE(s.topStallReasons[0].second, qint64(68047));
        QCOMPARE(s.topStallReasons[1].first, QStringLiteral("drain"));
        const std::vector<size_t> hot = HotInstructions::hottest(f, 3);
        QCOMPARE(hot.size(), size_t(3));
        const SassInstruction &top = f.instructions[hot[0]];
        QCOMPARE(top.address.value(), quint64(0x1c0));
        QCOMPARE(top.text, QStringLiteral("@!P0 FMUL R0, R0, R11"));
        QCOMPARE(top.stallSamples.value(), qint64(48602));
        QCOMPARE(top.executed.value(), qint64(1572864));
        QVERIFY(top.stallReasons.at(QStringLiteral("long_sb")) > 0);
        QCOMPARE(f.instructions[hot[1]].address.value(), quint64(0x1f0));
    }

    void attachTriton()
    {
        auto functions =
            SassParser::parseSass(readInspectFixture(QStringLiteral("triton-rmsnorm.cuobjdump-sass.txt")));
        const auto reports =
            NcuSourceParser::parse(readInspectFixture(QStringLiteral("triton-rmsnorm.ncu-source-sass.csv")));
        QCOMPARE(reports.size(), size_t(1));
        const AttachSummary s = HotInstructions::attach(functions[0], reports[0]);
        QCOMPARE(s.matched, 320);
        QCOMPARE(s.opcodeMismatches, 0);
        QCOMPARE(s.totalSamples, qint64(3647));
        QCOMPARE(s.topStallReasons[0].first, QStringLiteral("long_sb"));
        QCOMPARE(s.topStallReasons[1].first, QStringLiteral("barrier"));
        const auto hot = HotInstructions::hottest(functions[0], 2);
        QCOMPARE(functions[0].instructions[hot[0]].address.value(), quint64(0x1f0));
        QCOMPARE(functions[0].instructions[hot[1]].opcode, QStringLiteral("LDS"));
    }

    // Every source page's whole parse against tests/data/golden/<tag>.expected.txt: per kernel,
    // each instruction's address, text, samples, count and stall reasons.
    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const char *fixture : {"templated.ncu-source-sass.csv", "triton-rmsnorm.ncu-source-sass.csv",
                                    "journey-gelu.ncu-source-sass.csv"}) {
            QString golden = QString::fromLatin1(fixture);
            golden.chop(4); // ".csv"
            QTest::newRow(qPrintable(golden)) << QString::fromLatin1(fixture);
        }
    }

    void golden()
    {
        QFETCH(QString, fixture);
        HK_COMPARE_GOLDEN(QString::fromLatin1(QTest::currentDataTag()),
                          parsertext::sourceReports(NcuSourceParser::parse(readInspectFixture(fixture))));
    }

    void baseName()
    {
        QCOMPARE(HotInstructions::baseName(QStringLiteral("void scaled_add<float, (int)4>(const T1 *)")),
                 QStringLiteral("scaled_add"));
        QCOMPARE(HotInstructions::baseName(
                     QStringLiteral("void at::native::vectorized_elementwise_kernel<4>(int)")),
                 QStringLiteral("vectorized_elementwise_kernel"));
        QCOMPARE(HotInstructions::baseName(QStringLiteral("rmsnorm_kernel")),
                 QStringLiteral("rmsnorm_kernel"));
    }
};

QTEST_GUILESS_MAIN(TestHotInstructions)
#include "tst_hotinstructions.moc"
