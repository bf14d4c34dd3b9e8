// SPDX-License-Identifier: Apache-2.0
// The MCP server over the in-process transport pair: the protocol as a client sees it.
#include "base/job.h"
#include "base/jsonparse.h"
#include "mcp/fdwriterworker.h"
#include "mcp/inprocesstransport.h"
#include "mcp/linesplitter.h"
#include "mcp/mcpserver.h"
#include "session/session.h"
#include "sessionoptions.h"
#include "testlimits.h"
#include "tools/builtintools.h"

#include <QCoroTimer>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>
#include <stdexcept>

#include <unistd.h>

using namespace hotkernel;

namespace {

// Waits args.steps x args.ms, reporting progress per step; stops early when cancelled.
QCoro::Task<ToolResult> slowHandler(Session &, Json args, Job &job)
{
    const int steps = args.value("steps", 3);
    const int ms = args.value("ms", 10);
    job.setProgress(0, steps, QStringLiteral("starting"));
    for (int i = 1; i <= steps; ++i) {
        co_await QCoro::sleepFor(std::chrono::milliseconds(ms));
        if (job.isCancelled())
            co_return ToolResult::cancelledResult();
        job.setProgress(i, steps, QStringLiteral("step %1").arg(i));
    }
    ToolResult result =
        ToolResult::success(Json{{"steps", steps}}, QStringLiteral("done %1 steps").arg(steps));
    result.resourceLinks.append(QStringLiteral("hotkernel://LEADERBOARD.md"));
    co_return result;
}

QCoro::Task<ToolResult> throwingHandler(Session &, Json, Job &)
{
    throw std::logic_error("boom");
    co_return ToolResult{};
}

ToolSpec testTool(const char *name, ToolSpec::Handler handler)
{
    ToolSpec spec;
    spec.name = QString::fromLatin1(name);
    spec.title = spec.name;
    spec.description = QStringLiteral("A tool for this test.");
    spec.inputSchema = Json::parse(R"({"type": "object", "additionalProperties": false, "properties": {
        "steps": {"type": "integer", "minimum": 0, "description": "how many steps"},
        "ms": {"type": "integer", "minimum": 0, "description": "milliseconds per step"}}})");
    spec.outputSchema = Json::parse(R"({"type": "object", "properties": {"steps": {"type": "integer"}}})");
    spec.handler = std::move(handler);
    return spec;
}

// One server on one session, and the client's end of the transport pair.
struct Harness
{
    explicit Harness(const QString &workDir = {}, bool withTestTools = true)
        : session(builtinTools(), test::optionsFor(workDir))
    {
        if (withTestTools) {
            // The registry is read-only for front-ends; a test may add its own tools before any
            // server reads it (the object itself is not const, so this is well defined).
            auto &tools = const_cast<ToolRegistry &>(session.tools());
            tools.add(testTool("test_slow", slowHandler));
            tools.add(testTool("test_throw", throwingHandler));
        }
        auto [c, s] = InProcessTransport::createPair();
        client = std::move(c);
        serverEnd = std::move(s);
        server = std::make_unique<McpServer>(session, serverEnd.get());
        QObject::connect(
            client.get(), &McpTransport::messageReceived, client.get(),
            [this](const QByteArray &line, bool) { received.append(Json::parse(line.toStdString())); });
    }

    int request(const char *method, Json params = Json::object())
    {
        const int id = nextId++;
        sendJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
        return id;
    }
    void notify(const char *method, Json params)
    {
        sendJson(Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
    }
    void sendJson(const Json &message) { client->send(QByteArray::fromStdString(message.dump())); }

    std::optional<Json> reply(const Json &id) const
    {
        for (const Json &m : received) {
            if (m.contains("id") && m["id"] == id && !m.contains("method"))
                return m;
        }
        return std::nullopt;
    }
    QList<Json> notifications(const char *method) const
    {
        QList<Json> list;
        for (const Json &m : received) {
            if (m.value("method", "") == method)
                list.append(m);
        }
        return list;
    }

    Session session;
    std::unique_ptr<InProcessTransport> client;
    std::unique_ptr<InProcessTransport> serverEnd;
    std::unique_ptr<McpServer> server;
    QList<Json> received;
    int nextId = 1;
};

#define JSON_COMPARE(actual, expected)                                                                       \
    do {                                                                                                     \
        const Json a_ = (actual);                                                                            \
        const Json e_ = (expected);                                                                          \
        QVERIFY2(a_ == e_, qPrintable(QStringLiteral("%1 != %2").arg(toQt(a_.dump()), toQt(e_.dump()))));    \
    } while (false)

#define WAIT_REPLY(h, id, out)                                                                               \
    QTRY_VERIFY_WITH_TIMEOUT((h).reply(id).has_value(), hotkernel::test::kEventLimitMs);                     \
    Json out = *(h).reply(id)

} // namespace

class TestMcpServer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initializeNegotiatesVersion_data()
    {
        QTest::addColumn<QString>("asked");
        QTest::addColumn<QString>("expected");
        for (const QString &v : McpServer::supportedProtocolVersions())
            QTest::newRow(qPrintable(v)) << v << v;
        QTest::newRow("unknown") << QStringLiteral("1999-01-01") << QStringLiteral("2025-11-25");
        QTest::newRow("missing") << QString() << QStringLiteral("2025-11-25");
    }
    void initializeNegotiatesVersion()
    {
        QFETCH(QString, asked);
        QFETCH(QString, expected);
        Harness h;
        Json params{{"capabilities", Json::object()}, {"clientInfo", {{"name", "tester"}, {"version", "1"}}}};
        if (!asked.isEmpty())
            params["protocolVersion"] = toStd(asked);
        const int id = h.request("initialize", params);
        WAIT_REPLY(h, id, r);
        QCOMPARE(toQt(r["result"]["protocolVersion"].get<std::string>()), expected);
        JSON_COMPARE(r["result"]["serverInfo"]["name"], "hotkernel");
        QVERIFY(r["result"]["capabilities"].contains("tools"));
        QVERIFY(r["result"]["capabilities"].contains("resources"));
        const QString instructions = toQt(r["result"]["instructions"].get<std::string>());
        QVERIFY(instructions.contains(QLatin1String("skills/kernel-speedrun/SKILL.md")));
        for (const ToolSpec &spec : h.session.tools().all())
            QVERIFY2(instructions.contains(spec.name), qPrintable(spec.name));
        QCOMPARE(h.server->clientName(), QStringLiteral("tester"));
    }

    void toolsListHasTheTenTools()
    {
        Harness h({}, false);
        h.request("initialize", Json{{"protocolVersion", "2025-06-18"}});
        const int id = h.request("tools/list");
        WAIT_REPLY(h, id, r);
        const Json tools = r["result"]["tools"];
        QCOMPARE(tools.size(), size_t(10));
        const QRegularExpression nameRule(QStringLiteral("^[A-Za-z0-9._-]{1,128}$"));
        QStringList names;
        for (Json tool : tools) {
            const QString name = toQt(tool["name"].get<std::string>());
            names.append(name);
            QVERIFY2(nameRule.match(name).hasMatch(), qPrintable(name));
            QVERIFY2(!tool["description"].get<std::string>().empty(), qPrintable(name));
            JSON_COMPARE(tool["inputSchema"]["type"], "object");
            JSON_COMPARE(tool["outputSchema"]["type"], "object");
            const Json properties = tool["inputSchema"].value("properties", Json::object());
            for (const auto &[property, schema] : properties.items()) {
                QVERIFY2(schema.contains("description") && !schema["description"].get<std::string>().empty(),
                         qPrintable(name + QLatin1Char('.') + toQt(property)));
            }
            for (const char *hint : {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
                QVERIFY2(tool["annotations"][hint].is_boolean(), hint);
        }
        const QStringList expected{QStringLiteral("gpu_info"),    QStringLiteral("roofline"),
                                   QStringLiteral("torch_trace"), QStringLiteral("profile"),
                                   QStringLiteral("top_kernels"), QStringLiteral("disasm"),
                                   QStringLiteral("bench"),       QStringLiteral("verify"),
                                   QStringLiteral("record"),      QStringLiteral("new_target")};
        QCOMPARE(names, expected);
    }

    void oldClientsGetNoNewFields()
    {
        Harness h;
        h.request("initialize", Json{{"protocolVersion", "2024-11-05"}});
        const int list = h.request("tools/list");
        WAIT_REPLY(h, list, r);
        QVERIFY(!r["result"]["tools"][0].contains("outputSchema"));
        const int call = h.request("tools/call", Json{{"name", "test_slow"}, {"arguments", {{"steps", 0}}}});
        WAIT_REPLY(h, call, c);
        QVERIFY(!c["result"].contains("structuredContent"));
        QCOMPARE(c["result"]["content"].size(), size_t(1));
    }

    void protocolFaults_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<int>("code");
        QTest::addColumn<QByteArray>("id"); // JSON of the id the error must carry
        QTest::newRow("malformed JSON")
            << QByteArray("{\"jsonrpc\": \"2.0\", \"id\": 1,") << -32700 << QByteArray("null");
        QTest::newRow("batch") << QByteArray(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])") << -32600
                               << QByteArray("null");
        QTest::newRow("not an object") << QByteArray("42") << -32600 << QByteArray("null");
        QTest::newRow("no method") << QByteArray(R"({"jsonrpc":"2.0","id":7})") << -32600 << QByteArray("7");
        QTest::newRow("wrong jsonrpc")
            << QByteArray(R"({"jsonrpc":"1.0","id":8,"method":"ping"})") << -32600 << QByteArray("8");
        QTest::newRow("object id") << QByteArray(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})")
                                   << -32600 << QByteArray("null");
        QTest::newRow("unknown method")
            << QByteArray(R"({"jsonrpc":"2.0","id":"u","method":"tools/frobnicate"})") << -32601
            << QByteArray("\"u\"");
        QTest::newRow("params not an object")
            << QByteArray(R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":[1]})") << -32602
            << QByteArray("9");
        QTest::newRow("call without name")
            << QByteArray(R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{}})") << -32602
            << QByteArray("10");
        QTest::newRow("unknown tool")
            << QByteArray(R"({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"nope"}})")
            << -32602 << QByteArray("11");
        QTest::newRow("arguments not an object")
            << QByteArray(
                   R"({"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"test_slow","arguments":"x"}})")
            << -32602 << QByteArray("12");
        QTest::newRow("bad progress token")
            << QByteArray(
                   R"({"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"test_slow","_meta":{"progressToken":[1]}}})")
            << -32602 << QByteArray("13");
        QTest::newRow("read without uri")
            << QByteArray(R"({"jsonrpc":"2.0","id":14,"method":"resources/read","params":{}})") << -32602
            << QByteArray("14");
        // Issue 18: nlohmann copies and dumps recursively; 100,000 levels took the process down.
        const QByteArray deep = QByteArray(100000, '[') + QByteArray(100000, ']');
        QTest::newRow("deep params") << QByteArray(R"({"jsonrpc":"2.0","id":15,"method":"ping","params":)") +
                                            deep + "}"
                                     << -32600 << QByteArray("15");
        QTest::newRow("deep arguments, id after them")
            << QByteArray(
                   R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"test_slow","arguments":{"steps":)") +
                   deep + R"(}},"id":"late"})"
            << -32600 << QByteArray("\"late\"");
        QTest::newRow("deep id") << QByteArray(R"({"jsonrpc":"2.0","method":"ping","id":)") + deep + "}"
                                 << -32600 << QByteArray("null");
        QTest::newRow("deep objects")
            << QByteArray(R"({"jsonrpc":"2.0","id":16,"method":"ping","params":)") +
                   QByteArray("{\"a\":").repeated(100000) + "1" + QByteArray(100000, '}') + "}"
            << -32600 << QByteArray("16");
        QTest::newRow("deep and unbalanced") << QByteArray(500000, '[') << -32700 << QByteArray("null");
    }
    void protocolFaults()
    {
        QFETCH(QByteArray, line);
        QFETCH(int, code);
        QFETCH(QByteArray, id);
        Harness h;
        h.client->send(QByteArray());      // an empty line: ignored
        h.client->send(QByteArray("   ")); // so is one of blanks
        h.client->send(line);
        QTRY_VERIFY_WITH_TIMEOUT(!h.received.isEmpty(), hotkernel::test::kEventLimitMs);
        Json error = h.received.first();
        JSON_COMPARE(error["jsonrpc"], "2.0");
        QCOMPARE(error["error"]["code"].get<int>(), code);
        QVERIFY(!error["error"]["message"].get<std::string>().empty());
        JSON_COMPARE(error["id"], Json::parse(id.toStdString()));
        // The dispatcher is still there.
        const int ping = h.request("ping");
        WAIT_REPLY(h, ping, p);
        JSON_COMPARE(p["result"], Json::object());
        QCOMPARE(h.received.size(), 2);
    }

    void argumentsFailingTheSchemaAreToolErrors()
    {
        Harness h;
        const int id =
            h.request("tools/call", Json{{"name", "test_slow"}, {"arguments", {{"steps", "three"}}}});
        WAIT_REPLY(h, id, r);
        QVERIFY(!r.contains("error"));
        JSON_COMPARE(r["result"]["isError"], true);
        const QString text = toQt(r["result"]["content"][0]["text"].get<std::string>());
        QVERIFY2(text.contains(QLatin1String("steps")) && text.contains(QLatin1String("invalid arguments")),
                 qPrintable(text));
    }

    void errorResultsCarryNoStructuredContent()
    {
        // Clients check any structuredContent against the outputSchema, which describes success
        // (the TypeScript SDK then throws its own error instead of showing ours).
        Harness h;
        const int bad = h.request("tools/call", Json{{"name", "test_slow"}, {"arguments", {{"steps", "x"}}}});
        const int thrown = h.request("tools/call", Json{{"name", "test_throw"}});
        for (const int id : {bad, thrown}) {
            WAIT_REPLY(h, id, r);
            JSON_COMPARE(r["result"]["isError"], true);
            QVERIFY2(!r["result"].contains("structuredContent"), r.dump().c_str());
            QVERIFY(!r["result"]["content"][0]["text"].get<std::string>().empty());
        }
    }

    void jsonLimits()
    {
        const auto nested = [](int depth) {
            return QByteArray(QByteArray(depth, '[') + QByteArray(depth, ']'));
        };
        QVERIFY(parseJsonLimited(nested(MaxJsonDepth)).ok());
        JsonParse deep = parseJsonLimited(nested(MaxJsonDepth + 1));
        QCOMPARE(deep.status, JsonParse::Status::TooDeep);
        QVERIFY2(deep.error.contains(QString::number(MaxJsonDepth)), qPrintable(deep.error));
        // What is shallow survives, so that an answer can carry the request's id.
        deep = parseJsonLimited(R"({"a": [[[1]]], "id": 5, "b": [2]})", 2);
        QCOMPARE(deep.status, JsonParse::Status::TooDeep);
        JSON_COMPARE(deep.value, Json::parse(R"({"a": [null], "id": 5, "b": [2]})"));
        QCOMPARE(parseJsonLimited("[1, 2", 8).status, JsonParse::Status::Malformed);
        QCOMPARE(parseJsonLimited("[1] x", 8).status, JsonParse::Status::Malformed);
        QCOMPARE(parseJsonLimited("[1234]", 8, 5).status, JsonParse::Status::TooLarge);
        QString why;
        QVERIFY(!parseJson(nested(100000), &why));
        QVERIFY2(why.contains(QLatin1String("levels")), qPrintable(why));
        // Same value as nlohmann's own parser, field order and duplicate keys included.
        const QByteArray text = R"({"z": 1, "a": {"k": [1, 2.5, "s", true, null, {}], "k": -3}, "m": []})";
        JSON_COMPARE(*parseJson(text), Json::parse(text.toStdString()));
        // Past the size where keys are indexed, repeated keys still behave the same.
        QByteArray many = "{";
        for (int i = 0; i < 40; ++i)
            many += "\"k" + QByteArray::number(i) + "\": " + QByteArray::number(i) + ", ";
        many += R"("k3": "again", "k39": [1]})";
        JSON_COMPARE(*parseJson(many), Json::parse(many.toStdString()));
        QCOMPARE(parseJson(many)->size(), size_t(40));
    }

    void writerStopsQueueingForAPeerThatDoesNotRead()
    {
        std::signal(SIGPIPE, SIG_IGN);
        int fds[2];
        QCOMPARE(::pipe(fds), 0);
        constexpr qint64 limit = 256 * 1024;
        const QByteArray block(10000, 'x');
        {
            FdWriterWorker writer(fds[1], limit);
            int accepted = 0;
            while (accepted < 1000 && writer.enqueue(block))
                ++accepted;
            QVERIFY2(accepted < 1000, "the writer queued without bound");
            QVERIFY(writer.queuedBytes() <= limit);
            QVERIFY(!writer.enqueue(block)); // and refuses from then on
            ::close(fds[0]); // the reader goes: the blocked write fails and the writer lets go
        }
    }

    void throwingToolIsAnErrorResult()
    {
        Harness h;
        const int id = h.request("tools/call", Json{{"name", "test_throw"}});
        WAIT_REPLY(h, id, r);
        JSON_COMPARE(r["result"]["isError"], true);
        const int ping = h.request("ping");
        WAIT_REPLY(h, ping, p);
        QVERIFY(p.contains("result"));
    }

    void callReturnsStructuredContentAndLinks()
    {
        Harness h;
        h.request("initialize", Json{{"protocolVersion", "2025-11-25"}});
        const int id =
            h.request("tools/call", Json{{"name", "test_slow"}, {"arguments", {{"steps", 2}, {"ms", 1}}}});
        WAIT_REPLY(h, id, r);
        Json result = r["result"];
        JSON_COMPARE(result["isError"], false);
        JSON_COMPARE(result["structuredContent"], Json({{"steps", 2}}));
        JSON_COMPARE(result["content"][0]["type"], "text");
        JSON_COMPARE(result["content"][0]["text"], "done 2 steps");
        JSON_COMPARE(result["content"][1]["type"], "resource_link");
        JSON_COMPARE(result["content"][1]["uri"], "hotkernel://LEADERBOARD.md");
        JSON_COMPARE(result["content"][1]["name"], "LEADERBOARD.md");
        QCOMPARE(h.session.jobs().constLast()->client(), QStringLiteral("mcp"));
    }

    void progressOnlyWithAToken()
    {
        Harness h;
        const int plain =
            h.request("tools/call", Json{{"name", "test_slow"}, {"arguments", {{"steps", 3}, {"ms", 1}}}});
        WAIT_REPLY(h, plain, r1);
        QVERIFY(h.notifications("notifications/progress").isEmpty());

        const int tracked = h.request("tools/call", Json{{"name", "test_slow"},
                                                         {"arguments", {{"steps", 3}, {"ms", 1}}},
                                                         {"_meta", {{"progressToken", "tok-1"}}}});
        WAIT_REPLY(h, tracked, r2);
        const QList<Json> progress = h.notifications("notifications/progress");
        QCOMPARE(progress.size(), 4); // 0, 1, 2, 3 of 3
        double last = -1;
        for (Json n : progress) {
            JSON_COMPARE(n["params"]["progressToken"], "tok-1");
            QCOMPARE(n["params"]["total"].get<double>(), 3.0);
            QVERIFY(n["params"]["progress"].get<double>() > last);
            last = n["params"]["progress"].get<double>();
        }
        JSON_COMPARE(progress.last().at("params").at("message"), "step 3");
    }

    void cancelledRequestGetsNoReply()
    {
        Harness h;
        const int id = h.request("tools/call", Json{{"name", "test_slow"},
                                                    {"arguments", {{"steps", 1000}, {"ms", 20}}},
                                                    {"_meta", {{"progressToken", 5}}}});
        QTRY_VERIFY_WITH_TIMEOUT(!h.notifications("notifications/progress").isEmpty(),
                                 hotkernel::test::kEventLimitMs);
        // Cheap requests answer while the long one runs.
        const int list = h.request("tools/list");
        WAIT_REPLY(h, list, l);
        QVERIFY(l.contains("result"));
        QCOMPARE(h.server->requestsInFlight(), 1);
        Job *job = h.session.runningJobs().value(0);
        QVERIFY(job);
        QSignalSpy finished(job, &Job::finished);
        h.notify("notifications/cancelled", Json{{"requestId", id}, {"reason", "test"}});
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, hotkernel::test::kEventLimitMs);
        QCOMPARE(job->state(), Job::State::Cancelled);
        const int ping = h.request("ping");
        WAIT_REPLY(h, ping, p);
        QTest::qWait(50);
        QVERIFY(!h.reply(id).has_value());
        QCOMPARE(h.server->requestsInFlight(), 0);
    }

    void cancellingAnUnknownRequestIsIgnored()
    {
        Harness h;
        h.notify("notifications/cancelled", Json{{"requestId", 999}});
        h.notify("notifications/cancelled", Json::array());
        const int ping = h.request("ping");
        WAIT_REPLY(h, ping, p);
        QCOMPARE(h.received.size(), 1);
    }

    void closingTheTransportEndsTheClientsJobs()
    {
        Harness h;
        h.request("tools/call", Json{{"name", "test_slow"}, {"arguments", {{"steps", 1000}, {"ms", 20}}}});
        QTRY_COMPARE_WITH_TIMEOUT(h.session.runningJobs().size(), 1, hotkernel::test::kEventLimitMs);
        QPointer<Job> job = h.session.runningJobs().constFirst();
        QSignalSpy finished(h.server.get(), &McpServer::finished);
        h.client->close();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, hotkernel::test::kEventLimitMs);
        QVERIFY(job);
        QCOMPARE(job->state(), Job::State::Cancelled);
    }

    void resourcesStayInsideTheWorkingDirectory()
    {
        QTemporaryDir root;
        QTemporaryDir elsewhere;
        QDir dir(root.path());
        QVERIFY(dir.mkpath(QStringLiteral("results/rmsnorm")) && dir.mkpath(QStringLiteral("profiles")));
        auto write = [](const QString &path, const QByteArray &bytes) {
            QFile f(path);
            return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
        };
        QVERIFY(write(dir.filePath(QStringLiteral("LEADERBOARD.md")), "# Leaderboard\n"));
        QVERIFY(write(dir.filePath(QStringLiteral("results/rmsnorm/run1.json")), "{\"speedup\": 1.5}\n"));
        QVERIFY(write(dir.filePath(QStringLiteral("profiles/top.csv")), "kernel,time\n"));
        QVERIFY(write(dir.filePath(QStringLiteral("notes.txt")), "not a resource\n"));
        QVERIFY(
            write(QDir(elsewhere.path()).filePath(QStringLiteral("secret.json")), "{\"secret\": true}\n"));
        QVERIFY(QFile::link(QDir(elsewhere.path()).filePath(QStringLiteral("secret.json")),
                            dir.filePath(QStringLiteral("results/rmsnorm/escape.json"))));

        Harness h(root.path());
        const int list = h.request("resources/list");
        WAIT_REPLY(h, list, l);
        QStringList uris;
        for (const Json &r : l["result"]["resources"])
            uris.append(toQt(r["uri"].get<std::string>()));
        QCOMPARE(uris, QStringList({QStringLiteral("hotkernel://skills/kernel-speedrun/SKILL.md"),
                                    QStringLiteral("hotkernel://LEADERBOARD.md"),
                                    QStringLiteral("hotkernel://results/rmsnorm/run1.json"),
                                    QStringLiteral("hotkernel://profiles/top.csv")}));

        const int read = h.request("resources/read", Json{{"uri", "hotkernel://results/rmsnorm/run1.json"}});
        WAIT_REPLY(h, read, rd);
        JSON_COMPARE(rd["result"]["contents"][0]["text"], "{\"speedup\": 1.5}\n");
        JSON_COMPARE(rd["result"]["contents"][0]["mimeType"], "application/json");

        const QStringList refused{QStringLiteral("hotkernel://../secret.json"),
                                  QStringLiteral("hotkernel://results/rmsnorm/../../notes.txt"),
                                  QStringLiteral("hotkernel://results/rmsnorm/escape.json"),
                                  QStringLiteral("hotkernel:///etc/passwd"),
                                  QStringLiteral("hotkernel://notes.txt"),
                                  QStringLiteral("file:///etc/passwd")};
        for (const QString &uri : refused) {
            const int id = h.request("resources/read", Json{{"uri", toStd(uri)}});
            WAIT_REPLY(h, id, e);
            QVERIFY2(e.contains("error"), qPrintable(uri));
            QCOMPARE(e["error"]["code"].get<int>(), -32602);
        }
        const int missing =
            h.request("resources/read", Json{{"uri", "hotkernel://results/rmsnorm/none.json"}});
        WAIT_REPLY(h, missing, m);
        QCOMPARE(m["error"]["code"].get<int>(), -32002);
    }

    void promptsServeTheSkill()
    {
        Harness h({}, false);
        h.request("initialize", Json{{"protocolVersion", "2025-11-25"}});
        QFile skillFile(QStringLiteral(HOTKERNEL_SOURCE_DIR "/skills/kernel-speedrun/SKILL.md"));
        QVERIFY(skillFile.open(QIODevice::ReadOnly));
        const std::string skill = skillFile.readAll().toStdString();
        QVERIFY(skill.size() > 1000);

        const int list = h.request("prompts/list");
        WAIT_REPLY(h, list, l);
        QCOMPARE(l["result"]["prompts"].size(), size_t(1));
        JSON_COMPARE(l["result"]["prompts"][0]["name"], "kernel-speedrun");

        const int get = h.request("prompts/get", Json{{"name", "kernel-speedrun"}});
        WAIT_REPLY(h, get, g);
        JSON_COMPARE(g["result"]["messages"][0]["role"], "user");
        JSON_COMPARE(g["result"]["messages"][0]["content"]["text"], skill);

        const int goal = h.request(
            "prompts/get", Json{{"name", "kernel-speedrun"}, {"arguments", {{"goal", "speed up softmax"}}}});
        WAIT_REPLY(h, goal, withGoal);
        const std::string text = withGoal["result"]["messages"][0]["content"]["text"].get<std::string>();
        QVERIFY(text.rfind(skill, 0) == 0 && text.find("speed up softmax") != std::string::npos);

        for (const Json &bad :
             {Json{{"name", "nope"}}, Json{{"name", "kernel-speedrun"}, {"arguments", {{"x", "1"}}}},
              Json{{"name", "kernel-speedrun"}, {"arguments", {{"goal", 3}}}}}) {
            const int id = h.request("prompts/get", bad);
            WAIT_REPLY(h, id, e);
            QCOMPARE(e["error"]["code"].get<int>(), -32602);
        }

        const int read =
            h.request("resources/read", Json{{"uri", "hotkernel://skills/kernel-speedrun/SKILL.md"}});
        WAIT_REPLY(h, read, rd);
        JSON_COMPARE(rd["result"]["contents"][0]["text"], skill);
        JSON_COMPARE(rd["result"]["contents"][0]["mimeType"], "text/markdown");
    }

    void resourceListChangesAreAnnounced()
    {
        QTemporaryDir root;
        Harness h(root.path());
        const int init = h.request("initialize", Json{{"protocolVersion", "2025-11-25"}});
        WAIT_REPLY(h, init, i);
        QVERIFY(i["result"]["capabilities"]["resources"]["listChanged"].get<bool>());
        QVERIFY(i["result"]["capabilities"].contains("prompts"));
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("results/rmsnorm")));
        QFile log(QDir(root.path()).filePath(QStringLiteral("results/rmsnorm/run1.json")));
        QVERIFY(log.open(QIODevice::WriteOnly) && log.write("{}\n") == 3);
        log.close();
        // A finished job makes the server look again even where no file watch fires.
        const int call = h.request("tools/call", Json{{"name", "test_slow"}, {"arguments", {{"steps", 0}}}});
        WAIT_REPLY(h, call, c);
        QTRY_COMPARE_WITH_TIMEOUT(h.notifications("notifications/resources/list_changed").size(), 1, 10000);
        // The same list again: nothing to announce.
        const int again = h.request("tools/call", Json{{"name", "test_slow"}, {"arguments", {{"steps", 0}}}});
        WAIT_REPLY(h, again, a);
        QTest::qWait(500);
        QCOMPARE(h.notifications("notifications/resources/list_changed").size(), 1);
    }

    void lineSplitterCapsLines()
    {
        LineSplitter splitter(8);
        QList<LineSplitter::Line> lines = splitter.feed("short\r\nmuch too long for eight");
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines[0].bytes, QByteArray("short"));
        lines = splitter.feed(" bytes\nok\n\npart");
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines[0].overlong);
        QCOMPARE(lines[1].bytes, QByteArray("ok"));
        QVERIFY(lines[2].bytes.isEmpty() && !lines[2].overlong);
        lines = splitter.finish();
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines[0].bytes, QByteArray("part"));
    }
};

QTEST_GUILESS_MAIN(TestMcpServer)
#include "tst_mcpserver.moc"
