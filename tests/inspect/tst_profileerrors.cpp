// SPDX-License-Identifier: Apache-2.0
// profile's failures a user can cause without a GPU: each one names what is wrong and what to do.
#include "inspect/cudatools.h"
#include "inspect/profilerunner.h"
#include "toolcall.h"
#include "tools/builtintools.h"

#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

class TestProfileErrors : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void missingNcuSaysWhereItLookedAndWhatToDo()
    {
        QTemporaryDir emptyBin;
        QTemporaryDir work;
        const QByteArray path = qgetenv("PATH");
        const QByteArray cudaHome = qgetenv("CUDA_HOME");
        qputenv("PATH", emptyBin.path().toUtf8());
        qputenv("CUDA_HOME", emptyBin.path().toUtf8());
        qunsetenv("HOTKERNEL_NCU");
        const auto restore = qScopeGuard([&] {
            qputenv("PATH", path);
            cudaHome.isNull() ? qunsetenv("CUDA_HOME") : qputenv("CUDA_HOME", cudaHome);
        });
        if (!CudaTools::find(QStringLiteral("ncu"), QStringLiteral("HOTKERNEL_NCU")).isEmpty())
            QSKIP("an ncu is installed in a fixed place on this machine, so it cannot be hidden");

        Session session(builtinTools(), inspectSessionOptions(work.path()));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("profile"),
                            Json{{"command", Json::array({"python3", "work.py"})}, {"tool", "ncu"}});
        QVERIFY(r.isError);
        QVERIFY2(r.text.contains(QStringLiteral("ncu was not found")), qPrintable(r.text));
        QVERIFY2(r.text.contains(emptyBin.path()), qPrintable(r.text));                 // where it looked
        QVERIFY2(r.text.contains(QStringLiteral("HOTKERNEL_NCU")), qPrintable(r.text)); // what to do
    }

    void counterPermissionAdviceIsActionable()
    {
        // ERR_NVGPUCTRPERM cannot be provoked on the GPU machine (it runs as root), so this checks
        // the advice itself: the fix for both cases and the fallback that needs no counters.
        const QString advice = ProfileRunner::counterPermissionAdvice();
        QVERIFY(advice.contains(QStringLiteral("NVreg_RestrictProfilingToAdminUsers=0")));
        QVERIFY(advice.contains(QStringLiteral("--cap-add=SYS_ADMIN")));
        QVERIFY(advice.contains(QStringLiteral("--tool trace")));
    }
};

QTEST_GUILESS_MAIN(TestProfileErrors)
#include "tst_profileerrors.moc"
