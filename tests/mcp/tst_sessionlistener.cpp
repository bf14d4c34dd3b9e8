// SPDX-License-Identifier: Apache-2.0
// One session, whoever opens it (issue 6): a Session with a SessionListener in this process, and
// real `hotkernel mcp` children started in its directory that must attach to it.
#include "base/job.h"
#include "base/workdir.h"
#include "mcp/inprocesstransport.h"
#include "mcp/linesplitter.h"
#include "mcp/mcprelay.h"
#include "mcp/sessionlistener.h"
#include "otheruser.h"
#include "process/processancestry.h"
#include "process/runtimedir.h"
#include "session/session.h"
#include "sessionoptions.h"
#include "testlimits.h"
#include "tools/builtintools.h"

#include <QCoroTimer>
#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QLocalSocket>
#include <QPointer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <csignal>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace hotkernel;
using hotkernel::test::asUser;
using hotkernel::test::otherUser;

namespace {

QCoro::Task<ToolResult> echoHandler(Session &, Json args, Job &job)
{
    co_return ToolResult::success(Json{{"echo", args}, {"client", toStd(job.client())}},
                                  QStringLiteral("echo from %1").arg(job.client()));
}

// Sleeps in short steps until cancelled (or 1000 steps have passed).
QCoro::Task<ToolResult> sleepHandler(Session &, Json, Job &job)
{
    for (int i = 0; i < 1000; ++i) {
        co_await QCoro::sleepFor(std::chrono::milliseconds(20));
        if (job.isCancelled())
            co_return ToolResult::cancelledResult();
    }
    co_return ToolResult::success(Json::object(), QStringLiteral("slept"));
}

ToolSpec listenerTool(const char *name, ToolSpec::Handler handler)
{
    ToolSpec spec;
    spec.name = QString::fromLatin1(name);
    spec.title = spec.name;
    spec.description = QStringLiteral("Exists only in the listener's session of this test.");
    spec.inputSchema = Json{{"type", "object"}};
    spec.outputSchema = Json{{"type", "object"}};
    spec.handler = std::move(handler);
    return spec;
}

// The session the window would own: test tools no `hotkernel mcp` process has of its own, so an
// answer that uses them can only come from here.
struct Workbench
{
    explicit Workbench(const QString &dir) : session(builtinTools(), test::optionsFor(dir))
    {
        session.mutableTools().add(listenerTool("test_echo", echoHandler));
        session.mutableTools().add(listenerTool("test_sleep", sleepHandler));
        listener = std::make_unique<SessionListener>(session);
    }
    ~Workbench()
    {
        // A handler still sleeping would resume into a destroyed session: let every job end first.
        listener.reset();
        session.cancelAll();
        QDeadlineTimer deadline(hotkernel::test::kEventLimitMs);
        while (!session.runningJobs().isEmpty() && !deadline.hasExpired())
            QTest::qWait(10);
    }

    // Starts the listener and waits for its socket: false when it never started listening.
    bool listen()
    {
        QSignalSpy listening(listener.get(), &SessionListener::listening);
        listener->start();
        return QTest::qWaitFor([&] { return listening.size() == 1; }, hotkernel::test::kEventLimitMs);
    }

    QList<Job *> jobsOf(const QString &client) const
    {
        QList<Job *> found;
        for (Job *job : session.jobs()) {
            if (job->client() == client)
                found.append(job);
        }
        return found;
    }

    Session session;
    std::unique_ptr<SessionListener> listener;
};

// A `hotkernel mcp` child speaking JSON lines, as an agent would.
class Agent
{
public:
    // underShell: `hotkernel mcp` runs as the child of a shell, which stands in for a worker (issue 41).
    Agent(const QString &dir, const QString &name, const QStringList &extraArguments = {},
          bool underShell = false)
        : m_name(name)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        // No display: without a listener the child must serve headless, never start a window.
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        m_process.setProcessEnvironment(env);
        m_process.setWorkingDirectory(dir);
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process, [this] {
            for (const LineSplitter::Line &line : m_splitter.feed(m_process.readAllStandardOutput())) {
                const std::optional<Json> message = parseJson(line.bytes);
                if (!message)
                    m_garbage.append(line.bytes);
                else
                    m_messages.append(*message);
            }
        });
        if (underShell) // not `exec`: the shell stays the parent of hotkernel mcp
            m_process.start(QStringLiteral("sh"),
                            QStringList{QStringLiteral("-c"), QStringLiteral("\"$0\" \"$@\"; exit $?"),
                                        QStringLiteral(HOTKERNEL_BINARY), QStringLiteral("mcp")} +
                                extraArguments);
        else
            m_process.start(QStringLiteral(HOTKERNEL_BINARY),
                            QStringList{QStringLiteral("mcp")} + extraArguments);
    }
    QString everything() const
    {
        QString text;
        for (const Json &m : m_messages)
            text += toQt(m.dump()) + QLatin1Char('\n');
        return text;
    }
    ~Agent()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(hotkernel::test::kEventLimitMs);
        }
    }

    void send(const Json &message) { m_process.write(QByteArray::fromStdString(message.dump()) + '\n'); }
    int request(const char *method, Json params = Json::object())
    {
        const int id = m_nextId++;
        send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
        return id;
    }
    void initialize()
    {
        request("initialize", Json{{"protocolVersion", "2025-11-25"},
                                   {"capabilities", Json::object()},
                                   {"clientInfo", {{"name", toStd(m_name)}, {"version", "0"}}}});
        send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    }
    int callTool(const char *tool, Json arguments = Json::object())
    {
        return request("tools/call", Json{{"name", tool}, {"arguments", std::move(arguments)}});
    }
    std::optional<Json> reply(int id) const
    {
        for (const Json &m : m_messages) {
            if (m.contains("id") && m["id"] == id && !m.contains("method"))
                return m;
        }
        return std::nullopt;
    }
    void closeStdin() { m_process.closeWriteChannel(); }

    QProcess &process() { return m_process; }
    const QList<QByteArray> &garbage() const { return m_garbage; }

private:
    QString m_name;
    QProcess m_process;
    LineSplitter m_splitter;
    QList<Json> m_messages;
    QList<QByteArray> m_garbage; // stdout lines that were not JSON
    int m_nextId = 1;
};

#define JSON_EQ(actual, expected)                                                                            \
    do {                                                                                                     \
        const Json a_ = (actual);                                                                            \
        const Json e_ = (expected);                                                                          \
        QVERIFY2(a_ == e_, qPrintable(QStringLiteral("%1 != %2").arg(toQt(a_.dump()), toQt(e_.dump()))));    \
    } while (false)

#define WAIT_REPLY(agent, id, out)                                                                           \
    QTRY_VERIFY_WITH_TIMEOUT((agent).reply(id).has_value(), hotkernel::test::kEventLimitMs);                 \
    const Json out = *(agent).reply(id)

QStringList toolNames(const Json &listReply)
{
    QStringList names;
    for (const Json &tool : listReply["result"]["tools"])
        names.append(toQt(tool["name"].get<std::string>()));
    return names;
}

// Leaves a socket file at path that nobody listens on, as a workbench that crashed does.
bool makeStaleSocket(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return false;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray bytes = QFile::encodeName(path);
    if (size_t(bytes.size()) >= sizeof address.sun_path)
        return false;
    std::memcpy(address.sun_path, bytes.constData(), size_t(bytes.size()));
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
    ::close(fd); // the file stays; connecting to it is refused
    return bound;
}

} // namespace

class TestSessionListener : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void socketNameIsPerDirectory()
    {
        const QString a = SessionListener::socketName(QStringLiteral("/home/u/project"));
        QCOMPARE(a, SessionListener::socketName(QStringLiteral("/home/u/project")));
        QVERIFY(a != SessionListener::socketName(QStringLiteral("/home/u/other")));
        QVERIFY(QFileInfo(a).isAbsolute());
        QVERIFY(QFileInfo(a).fileName().startsWith(QStringLiteral("hotkernel-")));
        QCOMPARE(QFileInfo(a).fileName().size(), QStringLiteral("hotkernel-").size() + 16);
        // In the per-user runtime directory, which no other user can write (issue 18).
        QCOMPARE(QFileInfo(a).absolutePath(), RuntimeDir::path());
        QVERIFY(RuntimeDir::isPrivateDirectory(QFileInfo(a).absolutePath(), nullptr));
    }

    void relayAnswersPendingCallsWhenTheWorkbenchExits_data()
    {
        QTest::addColumn<bool>("notice");
        QTest::addColumn<QString>("expected");
        QTest::newRow("signal")
            << true
            << QStringLiteral("the workbench window exited (signal 15, SIGTERM); your verify was ended");
        QTest::newRow("killed")
            << false
            << QStringLiteral("without saying why (its window was killed or crashed); your verify was ended");
    }

    void relayAnswersPendingCallsWhenTheWorkbenchExits()
    {
        QFETCH(bool, notice);
        QFETCH(QString, expected);
        auto [agentClient, agentEnd] = InProcessTransport::createPair();
        auto [workbenchEnd, workbenchServer] = InProcessTransport::createPair();
        McpRelay relay(agentEnd.get(), workbenchEnd.get());
        QSignalSpy finished(&relay, &McpRelay::finished);
        QList<Json> toAgent;
        QList<QByteArray> toWorkbench;
        connect(
            agentClient.get(), &McpTransport::messageReceived, this,
            [&toAgent](const QByteArray &line, bool) { toAgent.append(Json::parse(line.toStdString())); });
        connect(workbenchServer.get(), &McpTransport::messageReceived, this,
                [&toWorkbench](const QByteArray &line, bool) { toWorkbench.append(line); });
        const auto send = [](McpTransport *to, const Json &message) {
            to->send(QByteArray::fromStdString(message.dump()));
        };
        send(agentClient.get(), Json{{"jsonrpc", "2.0"},
                                     {"id", "v1"},
                                     {"method", "tools/call"},
                                     {"params", {{"name", "verify"}, {"arguments", Json::object()}}}});
        send(agentClient.get(), Json{{"jsonrpc", "2.0"},
                                     {"id", 2},
                                     {"method", "tools/call"},
                                     {"params", {{"name", "bench"}, {"arguments", Json::object()}}}});
        send(agentClient.get(), Json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "ping"}});
        send(agentClient.get(),
             Json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 2}}}});
        QTRY_COMPARE(toWorkbench.size(), 4);
        send(workbenchServer.get(), Json{{"jsonrpc", "2.0"}, {"id", 3}, {"result", Json::object()}});
        QTRY_COMPARE(toAgent.size(), 1);
        if (notice)
            send(workbenchServer.get(),
                 Json{{"jsonrpc", "2.0"},
                      {"method", McpRelay::exitNoticeMethod()},
                      {"params", {{"reason", "the workbench window exited (signal 15, SIGTERM)"}}}});
        QTest::qWait(50);
        QCOMPARE(toAgent.size(), 1); // the notice is the relay's, not the agent's
        workbenchServer->close();
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY(finished.constFirst().constFirst().toInt() != 0);
        // Only the verify was pending: the ping was answered, the bench cancelled by the agent.
        QTRY_COMPARE(toAgent.size(), 2);
        const Json answer = toAgent.at(1);
        JSON_EQ(answer["id"], "v1");
        JSON_EQ(answer["result"]["isError"], true);
        const QString text = toQt(answer["result"]["content"][0]["text"].get<std::string>());
        QVERIFY2(text.contains(expected), qPrintable(text));
    }

    void attachedAgentLearnsThatTheWindowExited()
    {
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QVERIFY(bench.listen());
        Agent agent(dir.path(), QStringLiteral("tester-exit"));
        agent.initialize();
        WAIT_REPLY(agent, 1, init);
        const int call = agent.callTool("test_sleep");
        QTRY_VERIFY_WITH_TIMEOUT(!bench.jobsOf(QStringLiteral("tester-exit")).isEmpty(), 15000);
        bench.listener->announceExit(SIGTERM);
        WAIT_REPLY(agent, call, reply);
        JSON_EQ(reply["result"]["isError"], true);
        const QString text = toQt(reply["result"]["content"][0]["text"].get<std::string>());
        QVERIFY2(text.contains(QStringLiteral(
                     "the workbench window exited (signal 15, SIGTERM); your test_sleep was ended")),
                 qPrintable(text));
        QTRY_VERIFY_WITH_TIMEOUT(agent.process().state() == QProcess::NotRunning, 15000);
        QVERIFY(agent.process().exitStatus() == QProcess::NormalExit && agent.process().exitCode() != 0);
        // Its job ended like a cancel.
        QTRY_VERIFY_WITH_TIMEOUT(bench.session.runningJobs().isEmpty(), 15000);
    }

    void anotherUsersSquattedSocketIsNotAWorkbench()
    {
        if (::getuid() != 0)
            QSKIP("needs root, to run a squatter as a second user (hk-test-other)");
        const QString other = otherUser();
        if (other.isEmpty())
            QSKIP("cannot create or find the user hk-test-other (useradd failed)");
        // A world-writable temporary directory, as /tmp is, where the old name lived.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        ::chmod(QFile::encodeName(tmp.path()).constData(), 01777);
        const QByteArray oldTmp = qgetenv("TMPDIR");
        const QByteArray oldXdg = qgetenv("XDG_RUNTIME_DIR");
        qputenv("TMPDIR", tmp.path().toUtf8());
        qunsetenv("XDG_RUNTIME_DIR");
        QTemporaryDir dir;
        // The other user listens where the socket used to be: <tmp>/hotkernel-<uid>-<hash>.
        const QByteArray hash = QCryptographicHash::hash(QFileInfo(dir.path()).canonicalFilePath().toUtf8(),
                                                         QCryptographicHash::Sha1)
                                    .toHex()
                                    .left(16);
        const QString squatted =
            QDir(tmp.path())
                .filePath(QStringLiteral("hotkernel-%1-%2").arg(::getuid()).arg(QString::fromLatin1(hash)));
        const QString listen = QStringLiteral("import socket, sys, time\n"
                                              "s = socket.socket(socket.AF_UNIX)\n"
                                              "s.bind(sys.argv[1])\n"
                                              "s.listen(8)\n"
                                              "print('up', flush=True)\n"
                                              "time.sleep(600)\n");
        QProcess squatter;
        squatter.start(QStringLiteral("setpriv"),
                       asUser(other) + QStringList{QStringLiteral("/usr/bin/python3"), QStringLiteral("-c"),
                                                   listen, squatted});
        QVERIFY(squatter.waitForStarted(15000));
        QByteArray squatterOutput; // read as it comes: QTRY_* evaluates its expression again at the end
        QTRY_VERIFY_WITH_TIMEOUT((squatterOutput += squatter.readAllStandardOutput()).contains("up"), 30000);
        {
            Workbench bench(dir.path());
            QSignalSpy failed(bench.listener.get(), &SessionListener::listenFailed);
            QVERIFY2(bench.listen(), failed.isEmpty()
                                         ? "no answer"
                                         : qPrintable(failed.constFirst().constFirst().toString()));
            QVERIFY(bench.listener->socketPath() != squatted);
        }
        // The other user made our fallback directory first: refused with a clear message, never
        // "another workbench owns this directory".
        const QString fallback = QDir(tmp.path()).filePath(QStringLiteral("hotkernel-%1").arg(::getuid()));
        QDir(fallback).removeRecursively();
        QVERIFY(hotkernel::test::runQuietly(QStringLiteral("setpriv"),
                                            asUser(other) + QStringList{QStringLiteral("mkdir"),
                                                                        QStringLiteral("-m"),
                                                                        QStringLiteral("0700"), fallback}));
        {
            Workbench bench(dir.path());
            QSignalSpy failed(bench.listener.get(), &SessionListener::listenFailed);
            bench.listener->start();
            QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
            const QString reason = failed.constFirst().constFirst().toString();
            QVERIFY2(reason.contains(QStringLiteral("belongs to user id")), qPrintable(reason));
            QVERIFY2(!reason.contains(QStringLiteral("another hotkernel workbench")), qPrintable(reason));
        }
        squatter.kill();
        squatter.waitForFinished(5000);
        hotkernel::test::runQuietly(QStringLiteral("rm"), {QStringLiteral("-rf"), fallback});
        qputenv("TMPDIR", oldTmp);
        if (!oldXdg.isEmpty())
            qputenv("XDG_RUNTIME_DIR", oldXdg);
    }

    void agentDrivesTheListenersSession()
    {
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QSignalSpy listening(bench.listener.get(), &SessionListener::listening);
        QSignalSpy attached(bench.listener.get(), &SessionListener::clientAttached);
        bench.listener->start();
        QTRY_COMPARE_WITH_TIMEOUT(listening.size(), 1, hotkernel::test::kEventLimitMs);
        QCOMPARE(listening.constFirst().constFirst().toString(),
                 SessionListener::socketName(bench.session.workDir().root()));

        // The event loop of the "window" keeps turning while the agent works.
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
        ticker.start(10);

        Agent agent(dir.path(), QStringLiteral("tester-a"));
        agent.initialize();
        WAIT_REPLY(agent, 1, init);
        JSON_EQ(init["result"]["serverInfo"]["name"], "hotkernel");
        const int list = agent.request("tools/list");
        WAIT_REPLY(agent, list, tools);
        const QStringList names = toolNames(tools);
        QVERIFY2(names.contains(QStringLiteral("test_echo")), qPrintable(names.join(u',')));
        QVERIFY(names.contains(QStringLiteral("verify")));

        const int call = agent.callTool("test_echo", Json{{"word", "hello"}});
        WAIT_REPLY(agent, call, echoed);
        JSON_EQ(echoed["result"]["isError"], false);
        JSON_EQ(echoed["result"]["structuredContent"]["echo"]["word"], "hello");
        JSON_EQ(echoed["result"]["structuredContent"]["client"], "tester-a");

        const QList<Job *> jobs = bench.jobsOf(QStringLiteral("tester-a"));
        QCOMPARE(jobs.size(), 1);
        QCOMPARE(jobs.constFirst()->tool(), QStringLiteral("test_echo"));
        QCOMPARE(jobs.constFirst()->state(), Job::State::Finished);
        QTRY_COMPARE_WITH_TIMEOUT(attached.size(), 1, hotkernel::test::kEventLimitMs);
        QCOMPARE(attached.constFirst().constFirst().toString(), QStringLiteral("tester-a"));
        QVERIFY(ticks > 0);

        QSignalSpy detached(bench.listener.get(), &SessionListener::clientDetached);
        agent.closeStdin();
        QTRY_COMPARE_WITH_TIMEOUT(agent.process().state(), QProcess::NotRunning,
                                  hotkernel::test::kEventLimitMs);
        QCOMPARE(agent.process().exitStatus(), QProcess::NormalExit);
        QCOMPARE(agent.process().exitCode(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(detached.size(), 1, hotkernel::test::kEventLimitMs);
        QCOMPARE(detached.constFirst().at(0).toString(), QStringLiteral("tester-a"));
        QCOMPARE(detached.constFirst().at(1).toInt(), 0);
        QVERIFY2(agent.garbage().isEmpty(), agent.garbage().value(0).constData());
        QCOMPARE(bench.listener->clientCount(), 0);
    }

    void nestedJsonFromAnAgentLeavesTheWindowStanding()
    {
        // Issue 18: one agent's 200 KB of "[[[[" killed the window and every other agent with it.
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QVERIFY(bench.listen());
        Agent hostile(dir.path(), QStringLiteral("hostile"));
        Agent other(dir.path(), QStringLiteral("other"));
        hostile.initialize();
        other.initialize();
        WAIT_REPLY(hostile, 1, hostileInit);
        WAIT_REPLY(other, 1, otherInit);
        const QByteArray deep = QByteArray(100000, '[') + QByteArray(100000, ']');
        hostile.process().write(
            R"({"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"test_echo",)"
            R"("arguments":{"x":)" +
            deep + "}}}\n");
        WAIT_REPLY(hostile, 50, refused);
        JSON_EQ(refused["error"]["code"], -32600);
        const int ping = hostile.request("ping");
        WAIT_REPLY(hostile, ping, pong);
        JSON_EQ(pong["result"], Json::object());
        const int echo = other.callTool("test_echo", Json{{"still", "here"}});
        WAIT_REPLY(other, echo, echoed);
        JSON_EQ(echoed["result"]["structuredContent"]["echo"]["still"], "here");
        QCOMPARE(bench.listener->clientCount(), 2);
        QVERIFY(bench.jobsOf(QStringLiteral("hostile")).isEmpty());
    }

    void agentThatStopsReadingIsDropped()
    {
        // A peer of the socket that never reads: the window lets it go rather than queue forever.
        qputenv("HOTKERNEL_MCP_OUTPUT_LIMIT", "300000");
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QVERIFY(bench.listen());
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(fd >= 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const QByteArray path =
            QFile::encodeName(SessionListener::socketName(bench.session.workDir().root()));
        std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
        QCOMPARE(::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
        QTRY_COMPARE_WITH_TIMEOUT(bench.listener->clientCount(), 1, 5000);
        QByteArray requests;
        for (int i = 0; i < 200; ++i)
            requests +=
                R"({"jsonrpc":"2.0","id":)" + QByteArray::number(i) + R"(,"method":"tools/list"})" + '\n';
        QCOMPARE(::write(fd, requests.constData(), size_t(requests.size())), ssize_t(requests.size()));
        QTRY_COMPARE_WITH_TIMEOUT(bench.listener->clientCount(), 0, 30000);
        ::close(fd);
        qunsetenv("HOTKERNEL_MCP_OUTPUT_LIMIT");
    }

    void answersSentBeforeStdinClosesStillArrive()
    {
        // `printf ... | hotkernel mcp`: stdin is at end of file right after the requests.
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QVERIFY(bench.listen());
        Agent agent(dir.path(), QStringLiteral("piped"));
        agent.initialize();
        const int list = agent.request("tools/list");
        const int ping = agent.request("ping");
        agent.closeStdin();
        QTRY_COMPARE_WITH_TIMEOUT(agent.process().state(), QProcess::NotRunning,
                                  hotkernel::test::kEventLimitMs);
        QCOMPARE(agent.process().exitCode(), 0);
        QVERIFY(agent.reply(1).has_value());
        QVERIFY(agent.reply(list).has_value());
        QVERIFY(toolNames(*agent.reply(list)).contains(QStringLiteral("test_echo")));
        JSON_EQ((*agent.reply(ping))["result"], Json::object());
        QVERIFY(agent.garbage().isEmpty());
    }

    void twoAgentsAtOnce()
    {
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QSignalSpy attached(bench.listener.get(), &SessionListener::clientAttached);
        QVERIFY(bench.listen());
        Agent a(dir.path(), QStringLiteral("tester-a"));
        Agent b(dir.path(), QStringLiteral("tester-b"));
        a.initialize();
        b.initialize();
        // b's call is in flight while a's runs: both connections are served at once.
        const int slow = a.callTool("test_sleep");
        QTRY_COMPARE_WITH_TIMEOUT(bench.jobsOf(QStringLiteral("tester-a")).size(), 1,
                                  hotkernel::test::kEventLimitMs);
        const int echoB = b.callTool("test_echo", Json{{"from", "b"}});
        WAIT_REPLY(b, echoB, replyB);
        JSON_EQ(replyB["result"]["structuredContent"]["client"], "tester-b");
        QVERIFY(!a.reply(slow).has_value());
        const int echoA = a.callTool("test_echo", Json{{"from", "a"}});
        WAIT_REPLY(a, echoA, replyA);
        JSON_EQ(replyA["result"]["structuredContent"]["client"], "tester-a");
        JSON_EQ(replyA["result"]["structuredContent"]["echo"]["from"], "a");
        JSON_EQ(replyB["result"]["structuredContent"]["echo"]["from"], "b");
        QCOMPARE(bench.jobsOf(QStringLiteral("tester-b")).size(), 1);
        QCOMPARE(bench.jobsOf(QStringLiteral("tester-a")).size(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(attached.size(), 2, hotkernel::test::kEventLimitMs);
        QStringList names{attached.at(0).at(0).toString(), attached.at(1).at(0).toString()};
        names.sort();
        QCOMPARE(names, QStringList({QStringLiteral("tester-a"), QStringLiteral("tester-b")}));
        QCOMPARE(bench.listener->clientCount(), 2);
    }

    void disconnectEndsThatAgentsJobsOnly()
    {
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QVERIFY(bench.listen());
        Job *windowJob =
            bench.session.start(QStringLiteral("test_sleep"), Json::object(), QStringLiteral("window"));
        QPointer<Job> windowJobAlive = windowJob;
        Agent agent(dir.path(), QStringLiteral("tester-c"));
        agent.initialize();
        agent.callTool("test_sleep");
        agent.callTool("test_sleep");
        QTRY_COMPARE_WITH_TIMEOUT(bench.jobsOf(QStringLiteral("tester-c")).size(), 2,
                                  hotkernel::test::kEventLimitMs);
        QList<QPointer<Job>> agentJobs;
        for (Job *job : bench.jobsOf(QStringLiteral("tester-c")))
            agentJobs.append(job);
        QCOMPARE(agentJobs.constFirst()->state(), Job::State::Running);

        QSignalSpy detached(bench.listener.get(), &SessionListener::clientDetached);
        agent.closeStdin();
        QTRY_COMPARE_WITH_TIMEOUT(detached.size(), 1, hotkernel::test::kEventLimitMs);
        QCOMPARE(detached.constFirst().at(0).toString(), QStringLiteral("tester-c"));
        QCOMPARE(detached.constFirst().at(1).toInt(), 2);
        for (const QPointer<Job> &job : std::as_const(agentJobs)) {
            QVERIFY(job);
            QCOMPARE(job->state(), Job::State::Cancelled);
        }
        // The window's own job is not the agent's to end.
        QVERIFY(windowJobAlive);
        QCOMPARE(windowJobAlive->state(), Job::State::Running);
        QTRY_COMPARE_WITH_TIMEOUT(agent.process().state(), QProcess::NotRunning,
                                  hotkernel::test::kEventLimitMs);
        QCOMPARE(agent.process().exitCode(), 0);
        bench.session.cancel(windowJob->id());
    }

    // Issue 41: a process below one of the session's workers (a candidate starting `hotkernel
    // mcp`, `hotkernel record`, ...) is refused, with the reason; the same client elsewhere is not.
    void callsFromAWorkersTreeAreRefused()
    {
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QList<long long> workers;
        bench.listener->setWorkerProcesses([&workers] { return workers; });
        QVERIFY(bench.listen());

        Agent underWorker(dir.path(), QStringLiteral("candidate"), {}, true);
        QVERIFY(underWorker.process().waitForStarted(hotkernel::test::kEventLimitMs));
        workers = {underWorker.process().processId()}; // the shell is the "worker"
        underWorker.initialize();
        const int call = underWorker.callTool("test_echo", Json{{"word", "record for me"}});
        QTRY_VERIFY_WITH_TIMEOUT(underWorker.reply(call).has_value() ||
                                     underWorker.process().state() == QProcess::NotRunning,
                                 hotkernel::test::kEventLimitMs);
        underWorker.process().waitForFinished(hotkernel::test::kEventLimitMs);
        const QString said =
            underWorker.everything() + QString::fromUtf8(underWorker.process().readAllStandardError());
        QVERIFY2(said.contains(QLatin1String("a worker of this session")), qPrintable(said));
        QVERIFY2(!said.contains(QLatin1String("\"echo\"")), qPrintable(said));
        QVERIFY(bench.jobsOf(QStringLiteral("candidate")).isEmpty());

        Agent agent(dir.path(), QStringLiteral("agent"));
        agent.initialize();
        const int echo = agent.callTool("test_echo", Json{{"word", "hello"}});
        WAIT_REPLY(agent, echo, echoed);
        JSON_EQ(echoed["result"]["isError"], false);
    }

    void peerCredentialsAndAncestry()
    {
        // This process descends from its parent and from pid 1, not from an unrelated pid.
        const QList<long long> line = ProcessAncestry::lineOf(QCoreApplication::applicationPid());
        QVERIFY(line.size() >= 2);
        QCOMPARE(line.constFirst(), QCoreApplication::applicationPid());
        QCOMPARE(ProcessAncestry::descendsFrom(QCoreApplication::applicationPid(), {(long long)::getppid()}),
                 (long long)::getppid());
        QCOMPARE(ProcessAncestry::descendsFrom(QCoreApplication::applicationPid(), {999999999LL}), -1LL);
        int pair[2];
        QVERIFY(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
        QCOMPARE(ProcessAncestry::peerPid(pair[0]), QCoreApplication::applicationPid());
        ::close(pair[0]);
        ::close(pair[1]);
    }

    void workbenchGoingAwayIsReportedToTheAgent()
    {
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QVERIFY(bench.listen());
        Agent agent(dir.path(), QStringLiteral("tester-d"));
        agent.initialize();
        WAIT_REPLY(agent, 1, init);
        QTRY_COMPARE_WITH_TIMEOUT(bench.listener->clientCount(), 1, hotkernel::test::kEventLimitMs);
        bench.listener.reset(); // the window closed
        QTRY_COMPARE_WITH_TIMEOUT(agent.process().state(), QProcess::NotRunning,
                                  hotkernel::test::kEventLimitMs);
        QCOMPARE(agent.process().exitStatus(), QProcess::NormalExit);
        QVERIFY(agent.process().exitCode() != 0);
        const QByteArray err = agent.process().readAllStandardError();
        QVERIFY2(err.contains("the workbench window was closed"), err.constData());
        QVERIFY(!QFileInfo::exists(SessionListener::socketName(bench.session.workDir().root())));
    }

    void staleSocketIsReplacedAndALiveOneKept()
    {
        QTemporaryDir dir;
        Workbench bench(dir.path());
        const QString path = SessionListener::socketName(bench.session.workDir().root());
        QVERIFY(makeStaleSocket(path));
        QVERIFY(QFileInfo::exists(path));
        QSignalSpy failed(bench.listener.get(), &SessionListener::listenFailed);
        QVERIFY(bench.listen());
        QCOMPARE(failed.size(), 0);

        // A second workbench on the same directory must not take the live socket over.
        SessionListener second(bench.session);
        QSignalSpy secondFailed(&second, &SessionListener::listenFailed);
        QSignalSpy secondListening(&second, &SessionListener::listening);
        second.start();
        QTRY_COMPARE_WITH_TIMEOUT(secondFailed.size(), 1, hotkernel::test::kEventLimitMs);
        QVERIFY2(secondFailed.constFirst().constFirst().toString().contains(QStringLiteral("already owns")),
                 qPrintable(secondFailed.constFirst().constFirst().toString()));
        QCOMPARE(secondListening.size(), 0);
        QVERIFY(!second.isListening());

        // The first still answers: an agent attaches to it.
        Agent agent(dir.path(), QStringLiteral("tester-e"));
        agent.initialize();
        const int list = agent.request("tools/list");
        WAIT_REPLY(agent, list, tools);
        QVERIFY(toolNames(tools).contains(QStringLiteral("test_echo")));
    }

    void withoutAWorkbenchTheAgentRunsHeadless()
    {
        QTemporaryDir dir;
        Agent agent(dir.path(), QStringLiteral("alone"));
        agent.initialize();
        const int list = agent.request("tools/list");
        WAIT_REPLY(agent, list, tools);
        const QStringList names = toolNames(tools);
        QVERIFY(names.contains(QStringLiteral("verify")));
        QVERIFY(!names.contains(QStringLiteral("test_echo")));
        agent.closeStdin();
        QTRY_COMPARE_WITH_TIMEOUT(agent.process().state(), QProcess::NotRunning,
                                  hotkernel::test::kEventLimitMs);
        QCOMPARE(agent.process().exitCode(), 0);
    }

    void headlessOptionNeverAttaches()
    {
        QTemporaryDir dir;
        Workbench bench(dir.path());
        QSignalSpy attached(bench.listener.get(), &SessionListener::clientAttached);
        QVERIFY(bench.listen());
        Agent agent(dir.path(), QStringLiteral("solo"), {QStringLiteral("--headless")});
        agent.initialize();
        const int list = agent.request("tools/list");
        WAIT_REPLY(agent, list, tools);
        QVERIFY(!toolNames(tools).contains(QStringLiteral("test_echo")));
        QCOMPARE(attached.size(), 0);
        QCOMPARE(bench.listener->clientCount(), 0);
    }

    // Issue 44: with a display but no window open here, `hotkernel mcp` serves headless; a window
    // opens only when asked (--window, HOTKERNEL_MCP_WINDOW=1).
    void noWindowUnlessAsked()
    {
        QTemporaryDir dir;
        QProcess mcp;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("DISPLAY"), QStringLiteral(":4242")); // a display, as a desktop has
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        env.remove(QStringLiteral("HOTKERNEL_MCP_WINDOW"));
        mcp.setProcessEnvironment(env);
        mcp.setWorkingDirectory(dir.path());
        mcp.start(QStringLiteral(HOTKERNEL_BINARY), {QStringLiteral("mcp")});
        const Json initialize{{"jsonrpc", "2.0"},
                              {"id", 1},
                              {"method", "initialize"},
                              {"params",
                               {{"protocolVersion", "2025-11-25"},
                                {"capabilities", Json::object()},
                                {"clientInfo", {{"name", "t"}, {"version", "0"}}}}}};
        mcp.write(QByteArray::fromStdString(initialize.dump()) + '\n');
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += mcp.readAllStandardOutput()).contains("\"serverInfo\""),
                                 hotkernel::test::kEventLimitMs);
        mcp.closeWriteChannel();
        QTRY_COMPARE_WITH_TIMEOUT(mcp.state(), QProcess::NotRunning, hotkernel::test::kEventLimitMs);
        const QByteArray err = mcp.readAllStandardError();
        QVERIFY2(!err.contains("started the hotkernel workbench"), err.constData());
        QVERIFY(!QFileInfo::exists(SessionListener::socketName(dir.path()) + QStringLiteral(".log")));
    }

    void relayAnswersAnOverlongLineItself()
    {
        auto [agentClient, agentEnd] = InProcessTransport::createPair();
        auto [workbenchEnd, workbenchServer] = InProcessTransport::createPair();
        McpRelay relay(agentEnd.get(), workbenchEnd.get());
        QList<QByteArray> toAgent;
        QList<QByteArray> toWorkbench;
        connect(agentClient.get(), &McpTransport::messageReceived, this,
                [&toAgent](const QByteArray &line, bool) { toAgent.append(line); });
        connect(workbenchServer.get(), &McpTransport::messageReceived, this,
                [&toWorkbench](const QByteArray &line, bool) { toWorkbench.append(line); });
        Q_EMIT agentEnd->messageReceived({}, true);
        agentClient->send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
        QTRY_COMPARE(toWorkbench.size(), 1);
        QCOMPARE(toAgent.size(), 1);
        JSON_EQ(Json::parse(toAgent.constFirst().toStdString())["error"]["code"], -32700);
        workbenchServer->send("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");
        QTRY_COMPARE(toAgent.size(), 2);
        JSON_EQ(Json::parse(toAgent.at(1).toStdString())["id"], 7);
    }
};

QTEST_GUILESS_MAIN(TestSessionListener)
#include "tst_sessionlistener.moc"
