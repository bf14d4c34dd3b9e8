// SPDX-License-Identifier: Apache-2.0
#include "sessionclient.h"

#include "mcp/localsockettransport.h"
#include "mcp/mcprelay.h"
#include "mcp/mcpserver.h"
#include "mcp/sessionlistener.h"
#include "mcp/workbenchconnector.h"
#include "measure/sessionidentity.h"

#include <QCoreApplication>
#include <QCoroSignal>
#include <QDir>
#include <QLocalSocket>
#include <QProcess>
#include <QTimer>

namespace hotkernel {

namespace {

// How long a `hotkernel serve` this process started may take to listen.
constexpr int ServeStartMs = 15000;
// How long a session may take to answer initialize: it answers at once unless it hangs.
constexpr int InitializeMs = 10000;

struct Connected
{
    QLocalSocket *socket = nullptr;
    QString error;
};

// One connection attempt (patienceMs 0) or retries until then, while watchPid lives.
QCoro::Task<Connected> connectTo(QString name, int patienceMs, qint64 watchPid)
{
    WorkbenchConnector connector(name);
    Connected outcome;
    bool settled = false;
    QTimer latch; // fires once either signal came: the coroutine awaits one signal, not two
    latch.setSingleShot(true);
    QObject::connect(&connector, &WorkbenchConnector::connected, &latch, [&](QLocalSocket *socket) {
        socket->setParent(nullptr); // outlives the connector
        outcome.socket = socket;
        settled = true;
        latch.start(0);
    });
    QObject::connect(&connector, &WorkbenchConnector::failed, &latch, [&](const QString &reason) {
        outcome.error = reason;
        settled = true;
        latch.start(0);
    });
    connector.start(patienceMs, watchPid);
    if (!settled)
        co_await qCoro(&latch, &QTimer::timeout);
    co_return outcome;
}

bool startServe(const QString &dir, const QString &socketName, const QString &hostArgument, qint64 *pid)
{
    QProcess serve;
    serve.setProgram(QCoreApplication::applicationFilePath());
    QStringList arguments;
    if (!hostArgument.isEmpty())
        arguments << QStringLiteral("--host") << hostArgument;
    serve.setArguments(arguments << QStringLiteral("serve"));
    serve.setWorkingDirectory(dir);
    // Never the CLI's pipes: the server outlives this call, and whoever reads the CLI's output
    // (a script, an agent) would otherwise wait for the server to exit.
    serve.setStandardInputFile(QProcess::nullDevice());
    serve.setStandardOutputFile(QProcess::nullDevice());
    serve.setStandardErrorFile(socketName + QStringLiteral(".log"));
    return serve.startDetached(pid);
}

} // namespace

SessionClient::SessionClient(LocalSocketTransport *transport, QString dir)
    : m_transport(transport), m_dir(std::move(dir))
{
    connect(m_transport.get(), &LocalSocketTransport::messageReceived, this,
            [this](const QByteArray &line, bool) { received(line); });
    connect(m_transport.get(), &LocalSocketTransport::closed, this, [this] {
        m_closed = true;
        Q_EMIT changed();
    });
}

SessionClient::~SessionClient() = default;

QCoro::Task<SessionClient::Joined> SessionClient::join(QString dir, QString host, QString hostArgument,
                                                       bool startIfNone)
{
    Joined joined;
    QString error;
    const QString name = SessionListener::socketName(dir, &error);
    if (name.isEmpty()) {
        joined.whyNot = QStringLiteral("no session can serve this directory (%1)").arg(error);
        co_return joined;
    }
    Connected connected = co_await connectTo(name, 0, 0);
    if (!connected.socket && startIfNone) {
        qint64 pid = 0;
        if (!startServe(dir, name, hostArgument, &pid)) {
            joined.whyNot = QStringLiteral("could not start `hotkernel serve` for this directory");
            co_return joined;
        }
        connected = co_await connectTo(name, ServeStartMs, pid);
        // The server of a call that raced this one may own the socket (ours then exits at once).
        if (!connected.socket)
            connected = co_await connectTo(name, 0, 0);
        if (!connected.socket) {
            joined.whyNot =
                QStringLiteral("the `hotkernel serve` it started (pid %1) did not come up: %2 (log: %3.log)")
                    .arg(pid)
                    .arg(connected.error, name);
            co_return joined;
        }
    }
    if (!connected.socket) {
        joined.whyNot = connected.error;
        co_return joined;
    }

    std::unique_ptr<SessionClient> client(new SessionClient(new LocalSocketTransport(connected.socket), dir));
    Json initialize{
        {"protocolVersion", toStd(McpServer::supportedProtocolVersions().constLast())},
        {"capabilities", Json::object()},
        {"clientInfo",
         {{"name", toStd(QStringLiteral("hotkernel CLI (pid %1)").arg(QCoreApplication::applicationPid()))},
          {"version", HOTKERNEL_VERSION}}}};
    QTimer deadline;
    deadline.setSingleShot(true);
    deadline.start(InitializeMs);
    bool late = false;
    QObject::connect(&deadline, &QTimer::timeout, client.get(), [&late, c = client.get()] {
        late = true;
        Q_EMIT c->changed();
    });
    // Awaited with a deadline: a session that hangs must not hang the CLI with it.
    const qint64 id = client->m_nextId++;
    initialize = Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "initialize"}, {"params", initialize}};
    client->m_transport->send(QByteArray::fromStdString(initialize.dump()));
    while (!client->m_replies.count(id) && !client->m_closed && !late)
        co_await qCoro(client.get(), &SessionClient::changed);
    if (!client->m_replies.count(id)) {
        joined.whyNot = late ? QStringLiteral("the session on %1 did not answer within %2 s")
                                   .arg(name)
                                   .arg(InitializeMs / 1000)
                             : QStringLiteral("the session on %1 closed the connection: %2")
                                   .arg(name, client->m_goneReason);
        co_return joined;
    }
    const Json reply = client->m_replies[id];
    Json identity;
    if (const auto result = reply.find("result"); result != reply.end() && result->is_object()) {
        if (const auto meta = result->find("_meta"); meta != result->end() && meta->is_object())
            identity = meta->value(SessionIdentity::MetaKey, Json());
    }
    client->m_servedBy = SessionIdentity::describe(identity);
    if (const QString problem = SessionIdentity::mismatch(identity, host); !problem.isEmpty()) {
        joined.whyNot = problem;
        co_return joined;
    }
    client->m_transport->send(QByteArrayLiteral(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
    joined.client = std::move(client);
    co_return joined;
}

void SessionClient::received(const QByteArray &line)
{
    const std::optional<Json> message = parseJson(line);
    if (!message || !message->is_object())
        return;
    if (message->contains("method")) {
        const std::string method = message->value("method", std::string());
        const Json params = message->value("params", Json::object());
        if (method == "notifications/progress" && params.is_object() && params.contains("progressToken") &&
            params["progressToken"].is_number_integer()) {
            const auto it = m_progress.find(params["progressToken"].get<qint64>());
            if (it != m_progress.end() && it->second && params.contains("message") &&
                params["message"].is_string())
                it->second(toQt(params["message"].get<std::string>()));
        } else if (method == McpRelay::exitNoticeMethod() && params.is_object() &&
                   params.contains("reason") && params["reason"].is_string()) {
            m_goneReason = toQt(params["reason"].get<std::string>()); // the workbench is exiting
        }
        return;
    }
    if (message->contains("id") && (*message)["id"].is_number_integer()) {
        m_replies[(*message)["id"].get<qint64>()] = *message;
        Q_EMIT changed();
    }
}

QCoro::Task<ToolResult> SessionClient::call(QString tool, Json arguments,
                                            std::function<void(const QString &)> progress)
{
    const qint64 id = m_nextId++;
    m_progress[id] = std::move(progress);
    Json params{
        {"name", toStd(tool)}, {"arguments", std::move(arguments)}, {"_meta", {{"progressToken", id}}}};
    const Json message{
        {"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", std::move(params)}};
    m_transport->send(QByteArray::fromStdString(message.dump()));
    while (!m_replies.count(id) && !m_closed)
        co_await qCoro(this, &SessionClient::changed);
    m_progress.erase(id);
    if (!m_replies.count(id)) {
        co_return ToolResult::error(
            QStringLiteral("the session serving %1, %2, went away before it answered%3; run the call again")
                .arg(QDir::toNativeSeparators(m_dir), m_servedBy,
                     m_goneReason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(m_goneReason)));
    }
    const Json reply = m_replies[id];
    m_replies.erase(id);
    try {
        co_return toolResult(reply);
    } catch (const Json::exception &e) {
        co_return ToolResult::error(QStringLiteral("%1 answered something that is not a tool result (%2); "
                                                   "run the call again with --no-session")
                                        .arg(m_servedBy, QString::fromUtf8(e.what())));
    }
}

ToolResult SessionClient::toolResult(const Json &reply)
{
    if (reply.contains("error")) {
        const Json error = reply["error"];
        const std::string refused = "the session refused the call";
        return ToolResult::error(toQt(error.is_object() ? error.value("message", refused) : refused));
    }
    const Json result = reply.value("result", Json::object());
    QString text;
    if (const Json content = result.value("content", Json::array()); content.is_array()) {
        for (const Json &item : content) {
            if (item.is_object() && item.value("type", std::string()) == "text") {
                text = toQt(item.value("text", std::string()));
                break;
            }
        }
    }
    if (result.value("isError", false)) {
        ToolResult failed = ToolResult::error(text);
        failed.cancelled = text == QLatin1String("cancelled");
        return failed;
    }
    return ToolResult::success(result.value("structuredContent", Json::object()), text);
}

} // namespace hotkernel
