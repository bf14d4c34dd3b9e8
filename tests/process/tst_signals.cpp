// SPDX-License-Identifier: Apache-2.0
// Nothing outlives hotkernel (issue 18): SIGTERM, SIGINT and SIGHUP to `hotkernel verify`, SIGTERM
// to `hotkernel mcp --headless` during a verify, and kill -9 of `hotkernel verify`, while the
// candidate hangs and has left a `setsid` grandchild behind. Afterwards no process that carries
// the test's marker variable is left. Needs a Python with (CPU) torch: Debian's python3-torch.
#include "markedprocesses.h"

#include "base/json.h"
#include "mcp/sessionlistener.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <optional>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {
// Generous everywhere: torch imports take seconds on a loaded machine.
constexpr int StartMs = 240000;
constexpr int SettleMs = 90000;
} // namespace

class TestSignals : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_python;

    void startHotkernel(QProcess &process, const QByteArray &marker, const QStringList &arguments)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QString::fromLatin1(markerName(marker)), QString::fromLatin1(markerValue(marker)));
        env.insert(QStringLiteral("HOTKERNEL_PYTHON"), m_python);
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen")); // the window, here too
        process.setProcessEnvironment(env);
        process.setWorkingDirectory(m_tmp.path());
        process.start(QStringLiteral(HOTKERNEL_BINARY), arguments);
    }

    static QStringList verifyArguments()
    {
        return {QStringLiteral("verify"),
                QStringLiteral("--baseline"),
                QStringLiteral("targets/gelu_baseline.py"),
                QStringLiteral("--candidate"),
                QStringLiteral("targets/gelu_hang_candidate.py"),
                QStringLiteral("--n"),
                QStringLiteral("3")};
    }

    static void send(QProcess &to, const Json &message)
    {
        to.write(QByteArray::fromStdString(message.dump()) + '\n');
    }

    // initialize, initialized, then a verify of the hanging candidate as request id 2.
    static void startHangingVerify(QProcess &agent)
    {
        const Json initialize{{"protocolVersion", "2025-06-18"},
                              {"capabilities", Json::object()},
                              {"clientInfo", {{"name", "signals-test"}, {"version", "0"}}}};
        send(agent, Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", initialize}});
        send(agent, Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
        const Json arguments{{"baseline", "targets/gelu_baseline.py"},
                             {"candidate", "targets/gelu_hang_candidate.py"},
                             {"n", 3}};
        const Json call{{"name", "verify"}, {"arguments", arguments}};
        send(agent, Json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", call}});
    }

    // The answer to request id among the JSON lines read so far.
    static std::optional<Json> answer(const QByteArray &stdoutSoFar, int id)
    {
        for (const QByteArray &line : stdoutSoFar.split('\n')) {
            const std::optional<Json> m = parseJson(line);
            if (m && m->is_object() && m->contains("id") && (*m)["id"] == id && !m->contains("method"))
                return m;
        }
        return std::nullopt;
    }

    // The hung candidate's escaped grandchild exists: the moment to strike.
    static bool waitForGrandchild(const QByteArray &marker, QProcess &hotkernel)
    {
        return QTest::qWaitFor(
                   [&] {
                       return anyMarkedProcess(marker, "sleep") || hotkernel.state() == QProcess::NotRunning;
                   },
                   StartMs) &&
               anyMarkedProcess(marker, "sleep");
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_python = qEnvironmentVariable("HOTKERNEL_PYTHON", QStringLiteral("/usr/bin/python3"));
        if (QProcess::execute(m_python, {QStringLiteral("-c"), QStringLiteral("import torch")}) != 0)
            QSKIP("no Python with torch (set HOTKERNEL_PYTHON; Debian: apt install python3-torch)");
        QProcess p;
        p.setWorkingDirectory(m_tmp.path());
        p.start(QStringLiteral(HOTKERNEL_BINARY),
                {QStringLiteral("new"), QStringLiteral("gelu"), QStringLiteral("--from"),
                 QStringLiteral("torch.nn.functional:gelu"), QStringLiteral("--shape"),
                 QStringLiteral("64x64"), QStringLiteral("--dtype"), QStringLiteral("fp32"),
                 QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--iters"),
                 QStringLiteral("2"), QStringLiteral("--out-dir"), QStringLiteral("targets")});
        QVERIFY(p.waitForFinished(StartMs));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        // A candidate that leaves a grandchild in a session of its own, then hangs for good.
        QFile candidate(m_tmp.filePath(QStringLiteral("targets/gelu_candidate.py")));
        QVERIFY(candidate.open(QIODevice::ReadOnly));
        QByteArray text = candidate.readAll();
        QVERIFY(text.contains("if __name__ =="));
        text.replace("if __name__ ==", "import subprocess as _sp, time as _time\n"
                                       "_sp.Popen(['setsid', 'sleep', '1000'])\n"
                                       "_time.sleep(100000)\n\n\nif __name__ ==");
        QFile hang(m_tmp.filePath(QStringLiteral("targets/gelu_hang_candidate.py")));
        QVERIFY(hang.open(QIODevice::WriteOnly) && hang.write(text) == text.size());
    }

    void verifyEndsCleanlyOnSignal_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGHUP") << int(SIGHUP);
        QTest::newRow("SIGKILL") << int(SIGKILL);
    }

    void verifyEndsCleanlyOnSignal()
    {
        QFETCH(int, signal);
        const QByteArray marker = newMarker();
        QProcess hotkernel;
        startHotkernel(hotkernel, marker, verifyArguments());
        QVERIFY2(waitForGrandchild(marker, hotkernel), hotkernel.readAllStandardError().constData());
        ::kill(pid_t(hotkernel.processId()), signal);
        QVERIFY(hotkernel.waitForFinished(SettleMs));
        if (signal != SIGKILL) {
            QCOMPARE(hotkernel.exitStatus(), QProcess::NormalExit);
            QCOMPARE(hotkernel.exitCode(), 128 + signal);
        }
        QTRY_VERIFY2_WITH_TIMEOUT(markedProcesses(marker).isEmpty(),
                                  qPrintable(describe(markedProcesses(marker))), SettleMs);
    }

    void headlessServerEndsCleanlyOnSigterm()
    {
        const QByteArray marker = newMarker();
        QProcess hotkernel;
        startHotkernel(hotkernel, marker, {QStringLiteral("mcp"), QStringLiteral("--headless")});
        QVERIFY(hotkernel.waitForStarted(StartMs));
        startHangingVerify(hotkernel);
        QVERIFY2(waitForGrandchild(marker, hotkernel), hotkernel.readAllStandardError().constData());
        ::kill(pid_t(hotkernel.processId()), SIGTERM);
        QVERIFY(hotkernel.waitForFinished(SettleMs));
        QCOMPARE(hotkernel.exitStatus(), QProcess::NormalExit);
        QCOMPARE(hotkernel.exitCode(), 128 + SIGTERM);
        QTRY_VERIFY2_WITH_TIMEOUT(markedProcesses(marker).isEmpty(),
                                  qPrintable(describe(markedProcesses(marker))), SettleMs);
    }

    // Five tools/call lines as request ids 10..14 (bench, ping-like calls an agent might send).
    static void sendFiveCalls(QProcess &agent)
    {
        for (int id = 10; id < 15; ++id) {
            const Json call{{"name", "bench"},
                            {"arguments", {{"script", "targets/gelu_baseline.py"}, {"n", 2}}}};
            send(agent, Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", call}});
        }
    }

    // Issue 39: after SIGTERM the headless server is shutting down. A call that arrives then is
    // answered with an error that says so, and never runs.
    void headlessServerRefusesCallsWhileShuttingDown()
    {
        const QByteArray marker = newMarker();
        QProcess hotkernel;
        startHotkernel(hotkernel, marker, {QStringLiteral("mcp"), QStringLiteral("--headless")});
        QVERIFY(hotkernel.waitForStarted(StartMs));
        startHangingVerify(hotkernel);
        QVERIFY2(waitForGrandchild(marker, hotkernel), hotkernel.readAllStandardError().constData());
        ::kill(pid_t(hotkernel.processId()), SIGTERM);
        // The shutdown has begun (it says so on stderr) while the hung verify's processes end.
        QByteArray err;
        QVERIFY(QTest::qWaitFor(
            [&] {
                err += hotkernel.readAllStandardError();
                return err.contains("SIGTERM; ending") || hotkernel.state() == QProcess::NotRunning;
            },
            SettleMs));
        QVERIFY2(err.contains("SIGTERM; ending"), err.constData());
        sendFiveCalls(hotkernel);
        QVERIFY(hotkernel.waitForFinished(SettleMs));
        QCOMPARE(hotkernel.exitStatus(), QProcess::NormalExit);
        QCOMPARE(hotkernel.exitCode(), 128 + SIGTERM);
        const QByteArray out = hotkernel.readAllStandardOutput();
        for (int id = 10; id < 15; ++id) {
            const std::optional<Json> reply = answer(out, id);
            QVERIFY2(reply, out.constData());
            QVERIFY2((*reply)["result"]["isError"] == true, out.constData());
            const QString text = toQt((*reply)["result"]["content"][0]["text"].get<std::string>());
            QVERIFY2(
                text.contains(QStringLiteral("is shutting down (SIGTERM arrived) and takes no new calls")),
                qPrintable(text));
        }
        QTRY_VERIFY2_WITH_TIMEOUT(markedProcesses(marker).isEmpty(),
                                  qPrintable(describe(markedProcesses(marker))), SettleMs);
    }

    // Issue 39's crash: a verify (n=20) starts, SIGTERM, then five tools/call lines at once. Run
    // HOTKERNEL_SIGTERM_RACE_RUNS times (50 unless set): every run exits with 128 + SIGTERM, never
    // a crash, and no call is answered with a success after the signal. Under the asan preset a
    // posted event reaching a freed object fails here instead of passing by luck.
    void sigtermRaceWithNewCalls()
    {
        const int runs = qEnvironmentVariableIntValue("HOTKERNEL_SIGTERM_RACE_RUNS") > 0
                             ? qEnvironmentVariableIntValue("HOTKERNEL_SIGTERM_RACE_RUNS")
                             : 50;
        for (int run = 0; run < runs; ++run) {
            const QByteArray marker = newMarker();
            QProcess hotkernel;
            startHotkernel(hotkernel, marker, {QStringLiteral("mcp"), QStringLiteral("--headless")});
            QVERIFY(hotkernel.waitForStarted(StartMs));
            const Json initialize{{"protocolVersion", "2025-06-18"},
                                  {"capabilities", Json::object()},
                                  {"clientInfo", {{"name", "race-test"}, {"version", "0"}}}};
            send(hotkernel,
                 Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", initialize}});
            send(hotkernel, Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
            const Json arguments{{"baseline", "targets/gelu_baseline.py"},
                                 {"candidate", "targets/gelu_candidate.py"},
                                 {"n", 20}};
            send(hotkernel, Json{{"jsonrpc", "2.0"},
                                 {"id", 2},
                                 {"method", "tools/call"},
                                 {"params", {{"name", "verify"}, {"arguments", arguments}}}});
            // The verify has started its first process (the server's own is the marked one so far).
            QVERIFY(QTest::qWaitFor(
                [&] {
                    return markedProcesses(marker).size() > 1 || hotkernel.state() == QProcess::NotRunning;
                },
                StartMs));
            ::kill(pid_t(hotkernel.processId()), SIGTERM);
            sendFiveCalls(hotkernel);
            QVERIFY(hotkernel.waitForFinished(SettleMs));
            const QByteArray err = hotkernel.readAllStandardError();
            QVERIFY2(
                hotkernel.exitStatus() == QProcess::NormalExit,
                qPrintable(QStringLiteral("run %1 crashed: ").arg(run) + QString::fromUtf8(err.right(4000))));
            QVERIFY2(hotkernel.exitCode() == 128 + SIGTERM,
                     qPrintable(QStringLiteral("run %1 exited %2: ").arg(run).arg(hotkernel.exitCode()) +
                                QString::fromUtf8(err.right(4000))));
            QVERIFY2(!err.contains("ERROR: AddressSanitizer") && !err.contains("runtime error:"),
                     err.constData());
            const QByteArray out = hotkernel.readAllStandardOutput();
            for (int id = 10; id < 15; ++id) {
                const std::optional<Json> reply = answer(out, id);
                QVERIFY2(!reply || (*reply)["result"]["isError"] == true,
                         qPrintable(QStringLiteral("run %1: a call after SIGTERM ran: ").arg(run) +
                                    QString::fromUtf8(out)));
            }
            QTRY_VERIFY2_WITH_TIMEOUT(markedProcesses(marker).isEmpty(),
                                      qPrintable(describe(markedProcesses(marker))), SettleMs);
        }
    }

    // The window (offscreen) with an attached agent whose verify hangs: SIGTERM or kill -9 of the
    // window leaves nothing, and the agent's pending call is answered with why.
    void windowEndsCleanlyAndTellsTheAgent_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addColumn<QString>("expected");
        QTest::newRow("SIGTERM")
            << int(SIGTERM)
            << QStringLiteral("the workbench window exited (signal 15, SIGTERM); your verify was ended");
        QTest::newRow("SIGKILL") << int(SIGKILL)
                                 << QStringLiteral("killed or crashed); your verify was ended");
    }

    void windowEndsCleanlyAndTellsTheAgent()
    {
        QFETCH(int, signal);
        QFETCH(QString, expected);
        const QByteArray marker = newMarker();
        QProcess window;
        startHotkernel(window, marker, {});
        QVERIFY(window.waitForStarted(StartMs));
        const QString socket = SessionListener::socketName(QFileInfo(m_tmp.path()).canonicalFilePath());
        QVERIFY(!socket.isEmpty());
        const auto listening = [&] {
            return QFileInfo::exists(socket) || window.state() == QProcess::NotRunning;
        };
        QVERIFY(QTest::qWaitFor(listening, StartMs));
        QVERIFY2(QFileInfo::exists(socket), window.readAllStandardError().constData());
        QProcess agent;
        startHotkernel(agent, marker, {QStringLiteral("mcp")});
        QVERIFY(agent.waitForStarted(StartMs));
        startHangingVerify(agent);
        QVERIFY2(waitForGrandchild(marker, window), agent.readAllStandardError().constData());
        ::kill(pid_t(window.processId()), signal);
        QVERIFY(window.waitForFinished(SettleMs));
        if (signal != SIGKILL)
            QCOMPARE(window.exitCode(), 128 + signal);
        QVERIFY(agent.waitForFinished(SettleMs));
        const QByteArray out = agent.readAllStandardOutput();
        const std::optional<Json> reply = answer(out, 2);
        QVERIFY2(reply, out.constData());
        QVERIFY2((*reply)["result"]["isError"] == true, out.constData());
        const QString text = toQt((*reply)["result"]["content"][0]["text"].get<std::string>());
        QVERIFY2(text.contains(expected), qPrintable(text));
        QCOMPARE(agent.exitStatus(), QProcess::NormalExit);
        QVERIFY(agent.exitCode() != 0);
        QTRY_VERIFY2_WITH_TIMEOUT(markedProcesses(marker).isEmpty(),
                                  qPrintable(describe(markedProcesses(marker))), SettleMs);
    }
};

QTEST_GUILESS_MAIN(TestSignals)
#include "tst_signals.moc"
