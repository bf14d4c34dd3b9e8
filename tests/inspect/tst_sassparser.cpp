// SPDX-License-Identifier: Apache-2.0
#include "inspect/disasmrunner.h"
#include "inspect/sassparser.h"

#include "fixtures.h"
#include "golden.h"
#include "parsertext.h"

#include <QTest>

#include <algorithm>

using namespace hotkernel;

namespace {
const QString kMangled = QStringLiteral("_Z10scaled_addIfLi4ELc113EEvPKT_PS0_4PairIS0_Li2EEi");
}

class TestSassParser : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void opcode()
    {
        QCOMPARE(SassParser::opcodeOf(QStringLiteral("@!P0 LDG.E R0, desc[UR4][R2.64]")),
                 QStringLiteral("LDG.E"));
        QCOMPARE(SassParser::opcodeOf(QStringLiteral("EXIT")), QStringLiteral("EXIT"));
        QCOMPARE(SassParser::opcodeOf(QStringLiteral("@%p1 bra $L__BB0_2")), QStringLiteral("bra"));
        QCOMPARE(SassParser::demangle(kMangled),
                 QStringLiteral(
                     "void scaled_add<float, 4, (char)113>(float const*, float*, Pair<float, 2>, int)"));
        QCOMPARE(SassParser::demangle(QStringLiteral("rmsnorm_kernel")), QStringLiteral("rmsnorm_kernel"));
    }

    // cuobjdump -sass of an executable: two empty fatbin entries, then the function.
    void cuobjdumpTemplated()
    {
        const auto functions =
            SassParser::parseSass(readInspectFixture(QStringLiteral("templated.cuobjdump-sass.txt")));
        QCOMPARE(functions.size(), size_t(1));
        const SassFunction &f = functions[0];
        QCOMPARE(f.name, kMangled);
        QVERIFY(f.demangled.startsWith(QStringLiteral("void scaled_add<float, 4, (char)113>")));
        QCOMPARE(f.arch, QStringLiteral("sm_90"));
        QCOMPARE(f.level, QStringLiteral("sass"));
        QCOMPARE(f.instructions.size(), size_t(64));
        QCOMPARE(f.instructions[0].address.value(), quint64(0));
        QCOMPARE(f.instructions[0].text, QStringLiteral("LDC R1, c[0x0][0x28]"));
        QCOMPARE(f.instructions[0].opcode, QStringLiteral("LDC"));
        const SassInstruction &load = f.instructions[0x110 / 0x10];
        QCOMPARE(load.address.value(), quint64(0x110));
        QCOMPARE(load.text, QStringLiteral("@!P0 LDG.E R0, desc[UR4][R2.64]"));
        QCOMPARE(load.opcode, QStringLiteral("LDG.E"));
    }

    // nvdisasm -c: .text.<name> sections with branch labels, no encodings.
    void nvdisasmTemplated()
    {
        const auto functions =
            SassParser::parseSass(readInspectFixture(QStringLiteral("templated.nvdisasm.txt")));
        QCOMPARE(functions.size(), size_t(1));
        const SassFunction &f = functions[0];
        QCOMPARE(f.name, kMangled);
        QCOMPARE(f.arch, QStringLiteral("sm_90"));
        int labels = 0;
        int instructions = 0;
        for (const SassInstruction &in : f.instructions) {
            labels += !in.label.isEmpty();
            instructions += in.address.has_value();
        }
        QCOMPARE(instructions, 64);
        QCOMPARE(labels, 2);
        QVERIFY(std::any_of(f.instructions.begin(), f.instructions.end(),
                            [](const SassInstruction &in) { return in.label == QLatin1String(".L_x_0"); }));
        // Same code as cuobjdump printed (branch targets differ: nvdisasm names labels, cuobjdump prints
        // offsets).
        const auto viaCuobjdump =
            SassParser::parseSass(readInspectFixture(QStringLiteral("templated.cuobjdump-sass.txt")));
        std::vector<QString> a;
        std::vector<QString> b;
        for (const auto &in : f.instructions)
            if (in.address)
                a.push_back(in.opcode);
        for (const auto &in : viaCuobjdump[0].instructions)
            b.push_back(in.opcode);
        QCOMPARE(a, b);
        QVERIFY(std::any_of(f.instructions.begin(), f.instructions.end(), [](const SassInstruction &in) {
            return in.text == QLatin1String("BRA `(.L_x_0)");
        }));
    }

    void triton()
    {
        const auto cuobjdump =
            SassParser::parseSass(readInspectFixture(QStringLiteral("triton-rmsnorm.cuobjdump-sass.txt")));
        QCOMPARE(cuobjdump.size(), size_t(1));
        QCOMPARE(cuobjdump[0].name, QStringLiteral("rmsnorm_kernel"));
        QCOMPARE(cuobjdump[0].demangled, QStringLiteral("rmsnorm_kernel"));
        QCOMPARE(cuobjdump[0].arch, QStringLiteral("sm_90a"));
        QCOMPARE(cuobjdump[0].instructions.size(), size_t(320));
        const auto nvdisasm =
            SassParser::parseSass(readInspectFixture(QStringLiteral("triton-rmsnorm.nvdisasm.txt")));
        QCOMPARE(nvdisasm.size(), size_t(1));
        QCOMPARE(nvdisasm[0].instructions.size(), size_t(320 + 2)); // two labels
    }

    void tritonPtx()
    {
        const auto functions = SassParser::parsePtx(
            readInspectFixture(QStringLiteral("triton-cache-rmsnorm/rmsnorm_kernel.ptx")));
        QCOMPARE(functions.size(), size_t(1));
        QCOMPARE(functions[0].name, QStringLiteral("rmsnorm_kernel"));
        QCOMPARE(functions[0].level, QStringLiteral("ptx"));
        QVERIFY(functions[0].arch.startsWith(QStringLiteral("sm_90")));
        QVERIFY(functions[0].instructions.size() > 100);
        QVERIFY(std::any_of(
            functions[0].instructions.begin(), functions[0].instructions.end(),
            [](const SassInstruction &in) { return in.opcode.startsWith(QLatin1String("ld.global")); }));
    }

    // nvcc -ptx of the local fixture: three entries, two of them template instances.
    void nvccPtx()
    {
        const auto functions = SassParser::parsePtx(readInspectFixture(QStringLiteral("local/kernels.ptx")));
        QCOMPARE(functions.size(), size_t(3));
        QCOMPARE(functions[0].name, QStringLiteral("copy_rows"));
        QCOMPARE(functions[1].demangled,
                 QStringLiteral("void scale_add<float, 4>(float*, float const*, float const*, float, int)"));
        QCOMPARE(functions[2].name, QStringLiteral("_Z9scale_addIdLi2EEvPT_PKS0_S3_S0_i"));
        for (const auto &f : functions) {
            QVERIFY(!f.instructions.empty());
            QVERIFY(std::any_of(f.instructions.begin(), f.instructions.end(),
                                [](const SassInstruction &in) { return in.opcode == QLatin1String("ret"); }));
        }
    }

    void resourceUsage()
    {
        const auto usage =
            DisasmRunner::parseResourceUsage(readInspectFixture(QStringLiteral("templated.res-usage.txt")));
        QCOMPARE(usage.size(), size_t(1));
        QCOMPARE(usage.at(kMangled).at(QStringLiteral("REG")), QStringLiteral("22"));
        QCOMPARE(usage.at(kMangled).at(QStringLiteral("CONSTANT[0]")), QStringLiteral("556"));
        const auto triton = DisasmRunner::parseResourceUsage(
            readInspectFixture(QStringLiteral("triton-rmsnorm.res-usage.txt")));
        QCOMPARE(triton.at(QStringLiteral("rmsnorm_kernel")).at(QStringLiteral("REG")), QStringLiteral("64"));
        QCOMPARE(triton.at(QStringLiteral("rmsnorm_kernel")).at(QStringLiteral("SHARED")),
                 QStringLiteral("1024"));
    }

    // Every listing's whole parse against tests/data/golden/<tag>.expected.txt: each function's
    // header, then each instruction and label in listing order.
    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("parser");
        QTest::newRow("templated.cuobjdump-sass")
            << QStringLiteral("templated.cuobjdump-sass.txt") << QStringLiteral("sass");
        QTest::newRow("templated.nvdisasm")
            << QStringLiteral("templated.nvdisasm.txt") << QStringLiteral("sass");
        QTest::newRow("triton-rmsnorm.cuobjdump-sass")
            << QStringLiteral("triton-rmsnorm.cuobjdump-sass.txt") << QStringLiteral("sass");
        QTest::newRow("triton-rmsnorm.nvdisasm")
            << QStringLiteral("triton-rmsnorm.nvdisasm.txt") << QStringLiteral("sass");
        QTest::newRow("triton-rmsnorm.ptx")
            << QStringLiteral("triton-cache-rmsnorm/rmsnorm_kernel.ptx") << QStringLiteral("ptx");
        QTest::newRow("local-kernels.ptx") << QStringLiteral("local/kernels.ptx") << QStringLiteral("ptx");
        QTest::newRow("templated.res-usage")
            << QStringLiteral("templated.res-usage.txt") << QStringLiteral("res-usage");
        QTest::newRow("triton-rmsnorm.res-usage")
            << QStringLiteral("triton-rmsnorm.res-usage.txt") << QStringLiteral("res-usage");
    }

    void golden()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, parser);
        const QByteArray data = readInspectFixture(fixture);
        QString text;
        if (parser == QLatin1String("sass"))
            text = parsertext::sassFunctions(SassParser::parseSass(data));
        else if (parser == QLatin1String("ptx"))
            text = parsertext::sassFunctions(SassParser::parsePtx(data));
        else
            text = parsertext::resourceUsage(DisasmRunner::parseResourceUsage(data));
        HK_COMPARE_GOLDEN(QString::fromLatin1(QTest::currentDataTag()), text);
    }
};

QTEST_GUILESS_MAIN(TestSassParser)
#include "tst_sassparser.moc"
