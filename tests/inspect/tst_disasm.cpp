// SPDX-License-Identifier: Apache-2.0
#include "base/usererror.h"
#include "inspect/cudatools.h"
#include "session/schemavalidator.h"
#include "tools/builtintools.h"

#include "fixtures.h"
#include "toolcall.h"

#include <QTest>

using namespace hotkernel;

// Disassembles real cubins with the cuobjdump/nvdisasm wheels (HOTKERNEL_CUOBJDUMP and
// HOTKERNEL_NVDISASM are set by tests/inspect/CMakeLists.txt).
class TestDisasm : public QObject
{
    Q_OBJECT
private:
    void requireTools()
    {
        if (CudaTools::find(QStringLiteral("cuobjdump"), QStringLiteral("HOTKERNEL_CUOBJDUMP")).isEmpty() ||
            CudaTools::find(QStringLiteral("nvdisasm"), QStringLiteral("HOTKERNEL_NVDISASM")).isEmpty())
            QSKIP("cuobjdump/nvdisasm not found (run packaging/setup-deps.sh for the wheels)");
    }
    static void checkSchema(Session &session, const ToolResult &r)
    {
        const ToolSpec *spec = session.tools().find(QStringLiteral("disasm"));
        QCOMPARE(SchemaValidator::validate(spec->outputSchema, r.structured, QStringLiteral("result")),
                 QString());
    }

private Q_SLOTS:
    void listFunctions()
    {
        requireTools();
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        const ToolResult r = callInspectTool(session, QStringLiteral("disasm"),
                                             Json{{"target", "local/kernels.cubin"}, {"list", true}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        checkSchema(session, r);
        QCOMPARE(r.structured["functions"].size(), size_t(3));
        QStringList demangled;
        for (const Json &f : r.structured["functions"])
            demangled.append(toQt(f["demangled"].get<std::string>()));
        QVERIFY(demangled.contains(QStringLiteral("copy_rows")));
        QVERIFY(demangled.contains(
            QStringLiteral("void scale_add<double, 2>(double*, double const*, double const*, double, int)")));
        QVERIFY(r.text.contains(QStringLiteral("copy_rows")));
        QVERIFY(!r.structured.contains("function"));
    }

    void pickBySubstring_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::newRow("nvdisasm") << QStringLiteral("nvdisasm");
        QTest::newRow("cuobjdump") << QStringLiteral("cuobjdump");
    }
    void pickBySubstring()
    {
        requireTools();
        QFETCH(QString, tool);
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        const ToolResult r = callInspectTool(session, QStringLiteral("disasm"),
                                             Json{{"target", "local/kernels.cubin"},
                                                  {"function", "copy_rows"},
                                                  {"tool", toStd(tool)},
                                                  {"max_lines", 5}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        checkSchema(session, r);
        const Json &f = r.structured["function"];
        HK_JSON_COMPARE(f["name"], "copy_rows");
        HK_JSON_COMPARE(f["arch"], "sm_90");
        HK_JSON_COMPARE(f["truncated"], true);
        QCOMPARE(f["instructions"].size(), size_t(5));
        HK_JSON_COMPARE(f["instructions"][0]["text"], "LDC R1, c[0x0][0x28]");
        QVERIFY(r.structured["command"].get<std::string>().find(toStd(tool)) != std::string::npos);
        // copy_rows keeps a 256-float tile in shared memory.
        HK_JSON_COMPARE(r.structured["resources"]["shared_bytes"], 2048);
        HK_JSON_COMPARE(r.structured["resources"]["registers"], 10);
        QVERIFY(r.text.contains(QStringLiteral("more lines")));
    }

    void unknownFunctionNamesTheOthers()
    {
        requireTools();
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("disasm"),
                            Json{{"target", "local/kernels.cubin"}, {"function", "no_such_kernel"}});
        QVERIFY(r.isError);
        QVERIFY(r.text.contains(QStringLiteral("copy_rows")));
    }

    void ptxFile()
    {
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("disasm"),
                            Json{{"target", "local/kernels.ptx"}, {"level", "ptx"}, {"function", "double"}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        HK_JSON_COMPARE(r.structured["function"]["name"], "_Z9scale_addIdLi2EEvPT_PKS0_S3_S0_i");
        QVERIFY(r.structured["function"]["instruction_count"].get<int>() > 10);
    }

    // The lead's templated kernel: SASS of its cubin plus ncu's source page of the same build.
    void hotInstructions()
    {
        requireTools();
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        const ToolResult r = callInspectTool(session, QStringLiteral("disasm"),
                                             Json{{"target", "templated.sm_90.cubin"},
                                                  {"source_report", "templated.ncu-source-sass.csv"},
                                                  {"hot", 3}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        checkSchema(session, r);
        const Json &hot = r.structured["hot"];
        HK_JSON_COMPARE(hot["matched"], 64);
        HK_JSON_COMPARE(hot["opcode_mismatches"], 0);
        HK_JSON_COMPARE(hot["top_stall_reasons"][0]["reason"], "long_sb");
        HK_JSON_COMPARE(hot["instructions"][0]["address"], 0x1c0);
        HK_JSON_COMPARE(hot["instructions"][0]["stall_samples"], 48602);
        HK_JSON_COMPARE(r.structured["resources"]["registers"], 22);
        QVERIFY(r.text.contains(QStringLiteral("long_sb")));
        // Listing lines carry the samples too.
        bool found = false;
        for (const Json &in : r.structured["function"]["instructions"])
            found |= in.value("stall_samples", 0) == 48602;
        QVERIFY(found);
    }

    void tritonCache()
    {
        requireTools();
        qputenv("TRITON_CACHE_DIR", inspectFixturePath(QString()).toUtf8());
        Session session(builtinTools(), inspectSessionOptions(inspectFixturePath(QString())));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("disasm"),
                            Json{{"target", "triton-cache"}, {"function", "rmsnorm"}, {"max_lines", 20}});
        qunsetenv("TRITON_CACHE_DIR");
        QVERIFY2(!r.isError, qPrintable(r.text));
        checkSchema(session, r);
        HK_JSON_COMPARE(r.structured["triton"]["name"], "rmsnorm_kernel");
        HK_JSON_COMPARE(r.structured["triton"]["num_warps"], 8);
        HK_JSON_COMPARE(r.structured["triton"]["num_stages"], 3);
        HK_JSON_COMPARE(r.structured["triton"]["shared"], 32);
        HK_JSON_COMPARE(r.structured["resources"]["registers"], 64);
        HK_JSON_COMPARE(r.structured["resources"]["local_bytes"], 0);
        HK_JSON_COMPARE(r.structured["function"]["name"], "rmsnorm_kernel");
        QVERIFY(r.text.contains(QStringLiteral("num_warps 8")));
    }

    void missingToolIsActionable()
    {
        try {
            CudaTools::require(QStringLiteral("cuobjdump-not-installed"),
                               QStringLiteral("HOTKERNEL_CUOBJDUMP_MISSING"));
            QFAIL("a missing tool must throw");
        } catch (const UserError &e) {
            QVERIFY(e.message().contains(QStringLiteral("HOTKERNEL_CUOBJDUMP_MISSING")));
            QVERIFY(e.message().contains(QStringLiteral("/usr/local/cuda/bin")));
        }
    }
};

QTEST_GUILESS_MAIN(TestDisasm)
#include "tst_disasm.moc"
