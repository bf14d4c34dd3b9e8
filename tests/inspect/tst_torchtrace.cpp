// SPDX-License-Identifier: Apache-2.0
#include "session/schemavalidator.h"
#include "tools/builtintools.h"

#include "toolcall.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

// End to end on CPU torch: HOTKERNEL_PYTHON=/usr/bin/python3 (torch 1.13, no CUDA) is set by
// tests/inspect/CMakeLists.txt.
class TestTorchTrace : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cpuOpsWithShapes()
    {
        if (!QFile::exists(qEnvironmentVariable("HOTKERNEL_PYTHON")))
            QSKIP("HOTKERNEL_PYTHON does not name an interpreter here");
        QTemporaryDir dir;
        QFile script(dir.filePath(QStringLiteral("model.py")));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import sys, torch\n"
                     "print('noise on stdout', sys.argv[1:])\n"
                     "a = torch.randn(64, 128)\n"
                     "b = torch.randn(128, 32)\n"
                     "for _ in range(3):\n"
                     "    c = torch.relu(a @ b).sum(dim=1)\n");
        script.close();
        Session session(builtinTools(), inspectSessionOptions(dir.path()));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("torch_trace"),
                            Json{{"script", "model.py"}, {"args", {"--x", "1"}}, {"save_trace", true}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        const ToolSpec *spec = session.tools().find(QStringLiteral("torch_trace"));
        QCOMPARE(SchemaValidator::validate(spec->outputSchema, r.structured, QStringLiteral("result")),
                 QString());
        HK_JSON_COMPARE(r.structured["device"], "cpu");
        QVERIFY(r.structured["kernels"].empty());
        QVERIFY(r.structured["note"].get<std::string>().find("no GPU kernels") != std::string::npos);
        HK_JSON_COMPARE(r.structured["args"], Json::array({"--x", "1"}));
        bool matmulWithShapes = false;
        for (const Json &op : r.structured["ops"]) {
            if (op["name"] == "aten::mm" && op["input_shapes"] == Json::parse("[[64,128],[128,32]]")) {
                matmulWithShapes = true;
                HK_JSON_COMPARE(op["calls"], 3);
                QVERIFY(op["cpu_total_us"].get<double>() > 0);
            }
        }
        QVERIFY2(matmulWithShapes, r.structured["ops"].dump().c_str());
        QVERIFY(r.text.contains(QStringLiteral("no GPU kernels")));
        QVERIFY(r.text.contains(QStringLiteral("aten::mm [[64,128],[128,32]]")));
        const QString trace = toQt(r.structured["chrome_trace"].get<std::string>());
        QVERIFY(trace.startsWith(dir.path() + QStringLiteral("/profiles/")));
        QVERIFY(QFile::exists(trace));
    }

    void failingScriptShowsTraceback()
    {
        if (!QFile::exists(qEnvironmentVariable("HOTKERNEL_PYTHON")))
            QSKIP("HOTKERNEL_PYTHON does not name an interpreter here");
        QTemporaryDir dir;
        QFile script(dir.filePath(QStringLiteral("broken.py")));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import torch\nraise ValueError('shape mismatch in my kernel')\n");
        script.close();
        Session session(builtinTools(), inspectSessionOptions(dir.path()));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("torch_trace"), Json{{"script", "broken.py"}});
        QVERIFY(r.isError);
        QVERIFY(r.text.contains(QStringLiteral("ValueError: shape mismatch in my kernel")));
        QVERIFY(r.text.contains(QStringLiteral("Fix the script")));
    }
};

QTEST_GUILESS_MAIN(TestTorchTrace)
#include "tst_torchtrace.moc"
