// SPDX-License-Identifier: Apache-2.0
// Our NVIDIA SASS and PTX definitions, tested the framework's way: real listings in, reference
// spans out (tests/data/ui/*.ref), with a readable diff on mismatch.
#include "highlighting.h"
#include "linehighlighter.h"

#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/Theme>
#include <QFile>
#include <QMetaEnum>
#include <QTest>

using namespace hotkernel;

namespace {

QString styleName(const KSyntaxHighlighting::Format &format)
{
    static const QMetaEnum styles = QMetaEnum::fromType<KSyntaxHighlighting::Theme::TextStyle>();
    return QLatin1String("ds") + QLatin1String(styles.valueToKey(format.textStyle()));
}

QString render(const QStringList &lines, const KSyntaxHighlighting::Definition &definition)
{
    LineHighlighter highlighter(definition, Highlighting::repository().defaultTheme());
    const auto spans = highlighter.highlightLines(lines);
    QString out;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        int at = 0;
        for (const auto &span : spans[i]) {
            out += lines[i].mid(at, span.offset - at);
            const QString name = styleName(span.format);
            out += QLatin1Char('<') + name + QLatin1Char('>') + lines[i].mid(span.offset, span.length) +
                   QLatin1String("</") + name + QLatin1Char('>');
            at = span.offset + span.length;
        }
        out += lines[i].mid(at) + QLatin1Char('\n');
    }
    return out;
}

QString readText(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// The first differing lines with their neighbours, numbered: enough to see what moved.
QString lineDiff(const QString &expected, const QString &actual)
{
    const QStringList e = expected.split(QLatin1Char('\n'));
    const QStringList a = actual.split(QLatin1Char('\n'));
    QString out;
    int shown = 0;
    for (qsizetype i = 0; i < std::max(e.size(), a.size()) && shown < 5; ++i) {
        if (e.value(i) == a.value(i))
            continue;
        out += QStringLiteral("line %1\n- %2\n+ %3\n").arg(i + 1).arg(e.value(i), a.value(i));
        ++shown;
    }
    return out;
}

} // namespace

class TestSyntaxHighlighting : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void definitionsAreBundled()
    {
        QVERIFY(Highlighting::sassDefinition().isValid());
        QVERIFY(Highlighting::ptxDefinition().isValid());
        QCOMPARE(Highlighting::definitionForFileName(QStringLiteral("k.sass")).name(),
                 QStringLiteral("NVIDIA SASS"));
        QCOMPARE(Highlighting::definitionForFileName(QStringLiteral("k.ptx")).name(),
                 QStringLiteral("NVIDIA PTX"));
        // The framework's own "SASS" (the CSS preprocessor) stays what it was.
        QVERIFY(Highlighting::repository().definitionForName(QStringLiteral("SASS")).isValid());
    }

    void tokens_data()
    {
        QTest::addColumn<QString>("definition");
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("style");
        const QString sass = QStringLiteral("NVIDIA SASS");
        const QString line1 = QStringLiteral("        /*01e0*/              @!P0 S2R R9, SR_CgaCtaId ;");
        QTest::newRow("address") << sass << line1 << QStringLiteral("/*01e0*/") << QStringLiteral("dsOthers");
        QTest::newRow("guard") << sass << line1 << QStringLiteral("@!P0") << QStringLiteral("dsControlFlow");
        QTest::newRow("opcode") << sass << line1 << QStringLiteral("S2R") << QStringLiteral("dsKeyword");
        QTest::newRow("register") << sass << line1 << QStringLiteral("R9") << QStringLiteral("dsVariable");
        QTest::newRow("special") << sass << line1 << QStringLiteral("SR_CgaCtaId")
                                 << QStringLiteral("dsExtension");
        const QString line2 =
            QStringLiteral("        /*0050*/                   USHF.R.S32.HI UR5, URZ, 0x1f, UR7 ;");
        QTest::newRow("dotted opcode")
            << sass << line2 << QStringLiteral("USHF.R.S32.HI") << QStringLiteral("dsKeyword");
        QTest::newRow("uniform") << sass << line2 << QStringLiteral("URZ") << QStringLiteral("dsBuiltIn");
        QTest::newRow("immediate") << sass << line2 << QStringLiteral("0x1f") << QStringLiteral("dsBaseN");
        const QString line3 = QStringLiteral(
            "        /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */");
        QTest::newRow("constant") << sass << line3 << QStringLiteral("c[0x0][0x28]")
                                  << QStringLiteral("dsConstant");
        QTest::newRow("encoding") << sass << line3 << QStringLiteral("/* 0x00000a00ff017b82 */")
                                  << QStringLiteral("dsComment");
        const QString line4 =
            QStringLiteral("        /*00c0*/                   ISETP.GE.AND P2, PT, R2, UR7, PT ;");
        QTest::newRow("predicate reg")
            << sass << line4 << QStringLiteral("P2") << QStringLiteral("dsAttribute");
        QTest::newRow("label") << sass << QStringLiteral(".L_x_0:") << QStringLiteral(".L_x_0:")
                               << QStringLiteral("dsFunction");
        const QString ptx = QStringLiteral("NVIDIA PTX");
        QTest::newRow("ptx guard") << ptx << QStringLiteral("\t@%p1 bra \t$L__BB0_3;")
                                   << QStringLiteral("@%p1") << QStringLiteral("dsControlFlow");
        QTest::newRow("ptx opcode") << ptx << QStringLiteral("\t@%p1 bra \t$L__BB0_3;")
                                    << QStringLiteral("bra") << QStringLiteral("dsKeyword");
        QTest::newRow("ptx label ref") << ptx << QStringLiteral("\t@%p1 bra \t$L__BB0_3;")
                                       << QStringLiteral("$L__BB0_3") << QStringLiteral("dsFunction");
        QTest::newRow("ptx special") << ptx << QStringLiteral("\tmov.u32 \t%r55, %tid.x;")
                                     << QStringLiteral("%tid.x") << QStringLiteral("dsBuiltIn");
        QTest::newRow("ptx register") << ptx << QStringLiteral("\tmov.u32 \t%r55, %tid.x;")
                                      << QStringLiteral("%r55") << QStringLiteral("dsVariable");
        QTest::newRow("ptx type") << ptx << QStringLiteral("\t.reg .b32 \t%r<56>;") << QStringLiteral(".b32")
                                  << QStringLiteral("dsDataType");
        QTest::newRow("ptx float") << ptx << QStringLiteral("\tmov.f32 \t%f41, 0f00000000;")
                                   << QStringLiteral("0f00000000") << QStringLiteral("dsFloat");
    }

    void tokens()
    {
        QFETCH(QString, definition);
        QFETCH(QString, line);
        QFETCH(QString, token);
        QFETCH(QString, style);
        const QString rendered = render({line}, Highlighting::repository().definitionForName(definition));
        const QString expected = QLatin1Char('<') + style + QLatin1Char('>') + token + QLatin1String("</") +
                                 style + QLatin1Char('>');
        QVERIFY2(rendered.contains(expected), qPrintable(rendered));
    }

    void references_data()
    {
        QTest::addColumn<QString>("input");
        QTest::newRow("cuobjdump") << QStringLiteral("rmsnorm.cuobjdump.sass");
        QTest::newRow("nvdisasm") << QStringLiteral("rmsnorm.nvdisasm.sass");
        QTest::newRow("ptx") << QStringLiteral("rmsnorm.ptx");
    }

    void references()
    {
        QFETCH(QString, input);
        const QString dir = QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/ui/");
        const QString text = readText(dir + input);
        QVERIFY2(!text.isEmpty(), qPrintable(dir + input));
        QStringList lines = text.split(QLatin1Char('\n'));
        if (lines.last().isEmpty())
            lines.removeLast();
        const QString actual = render(lines, Highlighting::definitionForFileName(input));
        const QString refPath = dir + input + QStringLiteral(".ref");
        if (qEnvironmentVariableIsSet("HOTKERNEL_UPDATE_REFERENCES")) {
            QFile out(refPath);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(actual.toUtf8());
            QSKIP("reference written");
        }
        const QString expected = readText(refPath);
        QVERIFY2(!expected.isEmpty(),
                 qPrintable(
                     QStringLiteral("no reference %1; run with HOTKERNEL_UPDATE_REFERENCES=1").arg(refPath)));
        QVERIFY2(actual == expected, qPrintable(lineDiff(expected, actual)));
    }
};

QTEST_GUILESS_MAIN(TestSyntaxHighlighting)
#include "tst_syntaxhighlighting.moc"
