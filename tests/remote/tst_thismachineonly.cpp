// SPDX-License-Identifier: Apache-2.0
// Tools that run their programs on this machine only (profile, torch_trace, disasm) are refused in
// a session whose workers run on another host, before anything starts or connects, with a message
// that names the host and both ways on. In a local session the same calls reach the tool.
#include "measure/measuretesthelpers.h"
#include "session/session.h"
#include "session/toolregistry.h"
#include "testlimits.h"

#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;
using namespace hotkernel::test;

class TestThisMachineOnly : public QObject
{
    Q_OBJECT

    static ToolResult call(Session &session, const QString &tool, const Json &args)
    {
        auto r = capture(session.call(tool, args, QStringLiteral("test")));
        (void)QTest::qWaitFor([&] { return r->done; }, kEventLimitMs);
        if (!r->value)
            return ToolResult::error(QStringLiteral("did not finish: ") + r->error);
        return *r->value;
    }

    static std::vector<std::pair<QString, Json>> calls()
    {
        return {{QStringLiteral("profile"), Json{{"command", Json::array({"python3", "model.py"})}}},
                {QStringLiteral("torch_trace"), Json{{"script", "model.py"}}},
                {QStringLiteral("disasm"), Json{{"target", "kernel.cubin"}}}};
    }

private Q_SLOTS:
    void refusedOnARemoteHost()
    {
        QTemporaryDir dir;
        SessionOptions options;
        options.workDir = dir.path();
        options.host = QStringLiteral("ssh://ann@gpubox.invalid:2222/scratch/k");
        Session session(options);
        QVERIFY(session.remote());
        QStringList flagged;
        for (const ToolSpec &spec : session.tools().all())
            if (spec.thisMachineOnly)
                flagged << spec.name;
        QCOMPARE(flagged.size(), 3);
        for (const auto &[tool, args] : calls()) {
            const ToolResult r = call(session, tool, args);
            QVERIFY2(r.isError, qPrintable(tool + QStringLiteral(": ") + r.text));
            for (const QString &needed :
                 {QStringLiteral("ssh://ann@gpubox.invalid:2222/scratch/k"), QStringLiteral("not built yet"),
                  QStringLiteral("--host local"),
                  QStringLiteral("on ssh://ann@gpubox.invalid:2222/scratch/k itself")})
                QVERIFY2(r.text.contains(needed), qPrintable(tool + QStringLiteral(": ") + r.text));
            // Refused before the tool ran: nothing tried to reach the host.
            QVERIFY2(!r.text.contains(QStringLiteral("resolve")), qPrintable(r.text));
        }
    }

    void reachesTheToolLocally()
    {
        QTemporaryDir dir;
        SessionOptions options;
        options.workDir = dir.path();
        Session session(options);
        QVERIFY(!session.remote());
        // disasm of a file that is not there: the tool's own error, not the host refusal.
        const ToolResult r = call(session, QStringLiteral("disasm"), Json{{"target", "kernel.cubin"}});
        QVERIFY(r.isError);
        QVERIFY2(!r.text.contains(QStringLiteral("not built yet")), qPrintable(r.text));
        QVERIFY2(r.text.contains(QStringLiteral("kernel.cubin")), qPrintable(r.text));
    }
};

QTEST_GUILESS_MAIN(TestThisMachineOnly)
#include "tst_thismachineonly.moc"
