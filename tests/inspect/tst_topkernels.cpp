// SPDX-License-Identifier: Apache-2.0
#include "session/schemavalidator.h"
#include "tools/builtintools.h"

#include "fixtures.h"
#include "toolcall.h"

#include <QTest>

using namespace hotkernel;

class TestTopKernels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void detailsThroughTheTool()
    {
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        const ToolResult r = callInspectTool(session, QStringLiteral("top_kernels"),
                                             Json{{"path", "eager.ncu-details.csv"}, {"n", 3}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        const ToolSpec *spec = session.tools().find(QStringLiteral("top_kernels"));
        QCOMPARE(SchemaValidator::validate(spec->outputSchema, r.structured, QStringLiteral("result")),
                 QString());
        HK_JSON_COMPARE(r.structured["source"], "ncu-details");
        HK_JSON_COMPARE(r.structured["kernel_count"], 9);
        QCOMPARE(r.structured["kernels"].size(), size_t(3));
        const Json &top = r.structured["kernels"][0];
        HK_JSON_COMPARE(top["calls"], 3);
        HK_JSON_COMPARE(top["hint"], "compute");
        HK_JSON_COMPARE(top["registers_per_thread"], 44);
        QVERIFY(r.text.contains(QStringLiteral("distribution_elementwise_grid_stride_kernel")));
        QVERIFY(r.text.contains(QStringLiteral("compute")));
    }

    void rawAndTemplatedName()
    {
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("top_kernels"), Json{{"path", "templated.ncu-raw.csv"}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        HK_JSON_COMPARE(r.structured["source"], "ncu-raw");
        HK_JSON_COMPARE(r.structured["kernels"][0]["name"],
                        "void scaled_add<float, 4, 113>(const T1 *, T1 *, Pair<T1, 2>, int)");
        HK_JSON_COMPARE(r.structured["kernels"][0]["hint"], "memory");
        HK_JSON_COMPARE(r.structured["kernels"][0]["calls"], 3);
    }

    void unknownFileIsActionable()
    {
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("top_kernels"), Json{{"path", "nvidia-smi.txt"}});
        QVERIFY(r.isError);
        QVERIFY(r.text.contains(QStringLiteral("--page details")));
        const ToolResult missing =
            callInspectTool(session, QStringLiteral("top_kernels"), Json{{"path", "no-such.csv"}});
        QVERIFY(missing.isError);
        QVERIFY(missing.text.contains(QStringLiteral("does not exist")));
    }

    void readOnly()
    {
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        QVERIFY(session.tools().find(QStringLiteral("top_kernels"))->annotations.readOnly);
        QVERIFY(session.tools().find(QStringLiteral("disasm"))->annotations.readOnly);
    }
};

QTEST_GUILESS_MAIN(TestTopKernels)
#include "tst_topkernels.moc"
