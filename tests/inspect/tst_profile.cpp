// SPDX-License-Identifier: Apache-2.0
#include "inspect/cudatools.h"
#include "session/schemavalidator.h"
#include "tools/builtintools.h"

#include "toolcall.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

// On the GPU machine only: profile (ncu and our tracer) and torch_trace against a real CUDA run.
// Needs HOTKERNEL_PYTHON (or PATH) with a CUDA build of torch.
class TestProfile : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    static bool haveGpu()
    {
        return QFile::exists(QStringLiteral("/dev/nvidia0")) ||
               QFile::exists(QStringLiteral("/dev/nvidiactl"));
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!haveGpu())
            QSKIP("no NVIDIA GPU on this machine (/dev/nvidia0 missing)");
        QFile script(m_dir.filePath(QStringLiteral("work.py")));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import torch\n"
                     "x = torch.randn(4096, 4096, device='cuda', dtype=torch.bfloat16)\n"
                     "for _ in range(5):\n"
                     "    y = torch.softmax(x, dim=-1) * 2\n"
                     "torch.cuda.synchronize()\n");
    }

    void torchTraceOnGpu()
    {
        Session session(builtinTools(), inspectSessionOptions(m_dir.path()));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("torch_trace"), Json{{"script", "work.py"}}, 300000);
        QVERIFY2(!r.isError, qPrintable(r.text));
        HK_JSON_COMPARE(r.structured["device"], "cuda");
        QVERIFY(!r.structured["kernels"].empty());
        QVERIFY(r.structured["kernel_total_us"].get<double>() > 0);
        double shares = 0;
        for (const Json &k : r.structured["kernels"])
            shares += k["share"].get<double>();
        QVERIFY(shares > 0.5 && shares < 1.0001);
    }

    void ncu()
    {
        if (CudaTools::find(QStringLiteral("ncu"), QStringLiteral("HOTKERNEL_NCU")).isEmpty())
            QSKIP("ncu is not installed");
        Session session(builtinTools(), inspectSessionOptions(m_dir.path()));
        const ToolResult r = callInspectTool(session, QStringLiteral("profile"),
                                             Json{{"command", Json::array({"work.py"})},
                                                  {"tool", "ncu"},
                                                  {"kernel_regex", "SoftMax"},
                                                  {"launch_count", 1},
                                                  {"name", "softmax"}},
                                             600000);
        if (r.isError && r.text.contains(QStringLiteral("ERR_NVGPUCTRPERM")))
            QSKIP("performance counters are restricted on this machine");
        QVERIFY2(!r.isError, qPrintable(r.text));
        QCOMPARE(SchemaValidator::validate(session.tools().find(QStringLiteral("profile"))->outputSchema,
                                           r.structured, QStringLiteral("result")),
                 QString());
        HK_JSON_COMPARE(r.structured["report"],
                        toStd(m_dir.path() + QStringLiteral("/profiles/softmax.ncu-rep")));
        QVERIFY(QFileInfo::exists(toQt(r.structured["summary_csv"].get<std::string>())));
        QCOMPARE(r.structured["kernels"].size(), size_t(1));
        QVERIFY(r.structured["kernels"][0]["name"].get<std::string>().find("SoftMax") != std::string::npos);
        QVERIFY(!r.structured["kernels"][0]["hint"].get<std::string>().empty());
    }

    void tracer()
    {
        if (CudaTools::tracerLibrary().isEmpty())
            QSKIP("libhotkernel_tracer.so was not built (no CUDA Toolkit with CUPTI at build time)");
        Session session(builtinTools(), inspectSessionOptions(m_dir.path()));
        const ToolResult r = callInspectTool(
            session, QStringLiteral("profile"),
            Json{{"command", Json::array({"work.py"})}, {"tool", "trace"}, {"name", "traced"}}, 300000);
        QVERIFY2(!r.isError, qPrintable(r.text));
        HK_JSON_COMPARE(r.structured["source"], "trace");
        QVERIFY(r.structured["kernel_count"].get<int>() >= 2);
        QVERIFY(r.structured["kernels"][0]["registers_per_thread"].get<int>() > 0);
        QVERIFY(!r.structured["kernels"][0]["grid"].get<std::string>().empty());
    }
};

QTEST_GUILESS_MAIN(TestProfile)
#include "tst_profile.moc"
