// SPDX-License-Identifier: Apache-2.0
#include "base/usererror.h"
#include "base/workdir.h"
#include "measure/targetscaffold.h"
#include "record/resultlog.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {

TargetRequest geluRequest()
{
    TargetRequest r;
    r.name = QStringLiteral("gelu");
    r.from = QStringLiteral("torch.nn.functional:gelu");
    r.shape = QStringLiteral("256x512");
    return r;
}

// The UserError message plan() throws for r, or an empty string when it accepts r.
QString planError(const TargetRequest &r)
{
    try {
        TargetScaffold::plan(r);
    } catch (const UserError &e) {
        return e.message();
    }
    return {};
}

QString prepareError(const TargetRequest &r, const QString &root)
{
    try {
        TargetScaffold::prepare(r, WorkDir(root));
    } catch (const UserError &e) {
        return e.message();
    }
    return {};
}

} // namespace

class TestTargetScaffold : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void badTargetNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        QTest::newRow("slash") << QStringLiteral("a/b") << QStringLiteral("path separator");
        QTest::newRow("dotdot") << QStringLiteral("..") << QStringLiteral("'..'");
        QTest::newRow("dotdot inside") << QStringLiteral("a..b") << QStringLiteral("'..'");
        QTest::newRow("control") << QStringLiteral("ge\u0001lu") << QStringLiteral("control character");
        QTest::newRow("newline") << QStringLiteral("ge\nlu") << QStringLiteral("control character");
        QTest::newRow("digit first") << QStringLiteral("9lives") << QStringLiteral("not a Python identifier");
        QTest::newRow("dash") << QStringLiteral("my-target") << QStringLiteral("not a Python identifier");
        QTest::newRow("empty") << QString() << QStringLiteral("is empty");
        QTest::newRow("129 characters") << QString(129, QLatin1Char('a')) << QStringLiteral("more than 128");
    }
    void badTargetNames()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        TargetRequest r = geluRequest();
        r.name = name;
        const QString message = planError(r);
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void shapes_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QList<qint64>>("dims");
        QTest::newRow("matrix") << QStringLiteral("4096x8192") << QStringLiteral("x")
                                << QList<qint64>{4096, 8192};
        QTest::newRow("vector") << QStringLiteral("8192") << QStringLiteral("x") << QList<qint64>{8192};
        QTest::newRow("named") << QStringLiteral("w=8192x128") << QStringLiteral("w")
                               << QList<qint64>{8192, 128};
    }
    void shapes()
    {
        QFETCH(QString, shape);
        QFETCH(QString, name);
        QFETCH(QList<qint64>, dims);
        TargetRequest r = geluRequest();
        r.shape = shape;
        const TargetPlan plan = TargetScaffold::plan(r);
        QCOMPARE(plan.rawInputs.first().name, name);
        QCOMPARE(plan.rawInputs.first().shape, dims);
        QCOMPARE(plan.callInputs, QStringList{name});
    }

    void badShapes_data()
    {
        QTest::addColumn<QString>("shape");
        for (const char *bad :
             {"4096x", "x8192", "0x8192", "-8", "abc", "4096,,8192", "4096*", "4096x8192.5", "1=8"})
            QTest::newRow(bad) << QString::fromUtf8(bad);
    }

    void otherSeparatorsAsTheOriginal_data()
    {
        QTest::addColumn<QString>("shape");
        // The original hotkernel's forms: A,B and A*B (and spaces), all meaning AxB.
        for (const char *same : {"4096x8192", "4096,8192", "4096*8192", "4096 x 8192", "4096, 8192"})
            QTest::newRow(same) << QString::fromUtf8(same);
    }
    void otherSeparatorsAsTheOriginal()
    {
        QFETCH(QString, shape);
        QCOMPARE(TargetScaffold::parseDims(shape, QStringLiteral("--shape")), (QList<qint64>{4096, 8192}));
    }
    void badShapes()
    {
        QFETCH(QString, shape);
        TargetRequest r = geluRequest();
        r.shape = shape;
        const QString message = planError(r);
        QVERIFY2(!message.isEmpty(), qPrintable(shape));
        QVERIFY2(message.contains(QLatin1String("4096x8192")) ||
                     message.contains(QLatin1String("identifier")),
                 qPrintable(message));
    }

    void unknownDtypeListsTheAllowedOnes()
    {
        TargetRequest r = geluRequest();
        r.dtype = QStringLiteral("fp8");
        const QString message = planError(r);
        QVERIFY2(message.contains(QLatin1String("unknown dtype 'fp8'")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("bf16, fp16, fp32, tf32, fp64")), qPrintable(message));
    }

    void extras_data()
    {
        QTest::addColumn<QString>("extra");
        QTest::addColumn<QString>("expected"); // empty: accepted
        QTest::newRow("vector") << QStringLiteral("w:8192") << QString();
        QTest::newRow("with dtype") << QStringLiteral("scale:64:fp32") << QString();
        QTest::newRow("no dims") << QStringLiteral("w") << QStringLiteral("NAME:DIMS");
        QTest::newRow("bad dims") << QStringLiteral("w:abc") << QStringLiteral("does not parse");
        QTest::newRow("bad dtype") << QStringLiteral("w:8:int9") << QStringLiteral("unknown dtype 'int9'");
        QTest::newRow("bad name") << QStringLiteral("1w:8") << QStringLiteral("not a Python identifier");
        QTest::newRow("keyword name")
            << QStringLiteral("lambda:8") << QStringLiteral("not a Python identifier");
        QTest::newRow("twice") << QStringLiteral("x:8") << QStringLiteral("given twice");
    }
    void extras()
    {
        QFETCH(QString, extra);
        QFETCH(QString, expected);
        TargetRequest r = geluRequest();
        r.extra = QStringList{extra};
        const QString message = planError(r);
        if (expected.isEmpty())
            QVERIFY2(message.isEmpty(), qPrintable(message));
        else
            QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void rotateMustNameAnInput()
    {
        TargetRequest r = geluRequest();
        r.extra = QStringList{QStringLiteral("w:512")};
        r.rotate = QStringList{QStringLiteral("w")};
        QCOMPARE(planError(r), QString());
        r.rotate = QStringList{QStringLiteral("y")};
        const QString message = planError(r);
        QVERIFY2(message.contains(QLatin1String("--rotate names 'y'")) &&
                     message.contains(QLatin1String("x, w")),
                 qPrintable(message));
    }

    void deriveNeedsInputsAndReference()
    {
        TargetRequest r = geluRequest();
        r.derive = QStringLiteral("kernels:quantize");
        QVERIFY(planError(r).contains(QLatin1String("--derive needs --inputs")));
        r.inputs = QStringList{QStringLiteral("x"), QStringLiteral("wq")};
        QVERIFY(planError(r).contains(QLatin1String("--derive needs --reference")));
        r.reference = QStringLiteral("kernels:reference");
        r.rotate = QStringList{QStringLiteral("wq")};
        QCOMPARE(planError(r), QString());
        QCOMPARE(TargetScaffold::plan(r).callInputs,
                 (QStringList{QStringLiteral("x"), QStringLiteral("wq")}));
        r.derive.clear();
        QVERIFY(
            planError(r).contains(QLatin1String("--inputs names the inputs a --derive function returns")));
    }

    void badFunctionSpecs()
    {
        TargetRequest r = geluRequest();
        for (const char *bad :
             {"torch.nn.functional.gelu", "torch:", ":gelu", "torch nn:gelu", "./k.txt:f"}) {
            r.from = QString::fromUtf8(bad);
            QVERIFY2(planError(r).contains(QLatin1String("module:function")), bad);
        }
        r.from = QStringLiteral("./kernels.py:rmsnorm");
        QCOMPARE(planError(r), QString());
    }

    void generatedScripts()
    {
        TargetRequest r = geluRequest();
        r.extra = QStringList{QStringLiteral("w:512:fp32")};
        r.flops = 2.0 * 256 * 512;
        r.atol = 5e-4;
        const TargetPlan plan = TargetScaffold::plan(r);
        const QString baseline = TargetScaffold::baselineSource(plan);
        QVERIFY(baseline.contains(QLatin1String("from _hotkernel_contract import")));
        QVERIFY(baseline.indexOf(QLatin1String("_hotkernel_contract")) <
                baseline.indexOf(QLatin1String("\nfrom torch.nn")));
        QVERIFY(baseline.contains(QLatin1String("from torch.nn.functional import gelu as baseline_impl")));
        QVERIFY(baseline.contains(QLatin1String("def fn(x, w):\n    return baseline_impl(x, w)")));
        QVERIFY(baseline.contains(
            QLatin1String("inputs=[Input(\"x\", [256, 512]), Input(\"w\", [512], dtype=\"fp32\")]")));
        QVERIFY(baseline.contains(QLatin1String("flops=262144,")));
        QVERIFY(baseline.contains(QLatin1String("atol=0.0005,")));
        QVERIFY(baseline.contains(QLatin1String("main(TARGET, fn)")));
        const QString candidate = TargetScaffold::candidateSource(plan);
        QVERIFY(candidate.contains(QLatin1String("from gelu_baseline import TARGET")));
        QVERIFY(candidate.contains(QLatin1String("def fn(x, w):")));
        QVERIFY(!candidate.contains(QLatin1String("Target(")));

        r.from = QStringLiteral("./kernels.py:rmsnorm");
        QVERIFY(TargetScaffold::baselineSource(TargetScaffold::plan(r))
                    .contains(
                        QLatin1String("baseline_impl = load_function(\"./kernels.py:rmsnorm\", __file__)")));
    }

    void contractResourceIsTheShippedFile()
    {
        QFile source(QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/contract/_hotkernel_contract.py"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        QCOMPARE(TargetScaffold::contractSource(), source.readAll());
    }

    void refusesToOverwriteWithoutForce()
    {
        QTemporaryDir root;
        QFile existing(root.filePath(QStringLiteral("gelu_candidate.py")));
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.write("# my edits\n");
        existing.close();
        const QString message = prepareError(geluRequest(), root.path());
        QVERIFY2(message.contains(QLatin1String("already exists")) &&
                     message.contains(QLatin1String("--force")),
                 qPrintable(message));
        QVERIFY(!QFile::exists(root.filePath(QStringLiteral("gelu_baseline.py"))));
        QVERIFY(existing.open(QIODevice::ReadOnly));
        QCOMPARE(existing.readAll(), QByteArray("# my edits\n"));
    }

    void refusesAnotherContractVersionWithoutForce()
    {
        QTemporaryDir root;
        QFile old(root.filePath(QStringLiteral("_hotkernel_contract.py")));
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("# an older contract\n");
        old.close();
        const QString message = prepareError(geluRequest(), root.path());
        QVERIFY2(message.contains(QLatin1String("another version of the contract")), qPrintable(message));
    }

    // One rule (TargetName) for both: every name new accepts can be recorded; new adds only that
    // the scripts import each other by it, so it must be a Python identifier.
    void newAcceptsOnlyNamesRecordAccepts_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("plain") << QStringLiteral("rmsnorm");
        QTest::newRow("128") << QString(128, QLatin1Char('a'));
        QTest::newRow("129") << QString(129, QLatin1Char('a'));
        QTest::newRow("dotdot") << QStringLiteral("a..b");
        QTest::newRow("dot first") << QStringLiteral(".x");
        QTest::newRow("bidi") << QStringLiteral("ab\u202Ecd");
        QTest::newRow("underscore first") << QStringLiteral("_private");
    }
    void newAcceptsOnlyNamesRecordAccepts()
    {
        QFETCH(QString, name);
        TargetRequest r = geluRequest();
        r.name = name;
        const bool newAccepts = planError(r).isEmpty();
        const bool recordAccepts = ResultLog::targetNameProblem(name).isEmpty();
        QVERIFY2(!newAccepts || recordAccepts, qPrintable(planError(r)));
        const bool ruleAccepts = name.size() <= 128 && !name.contains(QLatin1String("..")) &&
                                 !name.startsWith(QLatin1Char('.')) && !name.contains(QChar(0x202E));
        QCOMPARE(recordAccepts, ruleAccepts);
        QCOMPARE(newAccepts, ruleAccepts); // every name in this table is an identifier otherwise
    }

    void outDirMustBeInsideTheWorkingDirectory()
    {
        QTemporaryDir root;
        QTemporaryDir elsewhere;
        TargetRequest r = geluRequest();
        r.outDir = elsewhere.path();
        QVERIFY(prepareError(r, root.path()).contains(QLatin1String("outside the working directory")));
        r.outDir = QStringLiteral("../escape");
        QVERIFY(prepareError(r, root.path()).contains(QLatin1String("outside the working directory")));
        QVERIFY(QDir(elsewhere.path()).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestTargetScaffold)
#include "tst_targetscaffold.moc"
