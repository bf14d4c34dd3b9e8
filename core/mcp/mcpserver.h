// SPDX-License-Identifier: Apache-2.0
// MCP (JSON-RPC 2.0) for one client over one transport, driving the shared Session: the agent's
// tool calls are Session jobs like the window's and the CLI's. Lives on the Session's thread;
// every handler answers at once or when its job finishes, so many requests may be in flight.
#pragma once

#include "base/json.h"
#include "mcp/mcpresources.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <map>
#include <optional>
#include <string>

namespace hotkernel {

class Job;
class McpTransport;
class ResourceWatcher;
class Session;
struct ToolResult;

class McpServer : public QObject
{
    Q_OBJECT
public:
    // The transport is not owned; it must outlive the server.
    McpServer(Session &session, McpTransport *transport, QObject *parent = nullptr);
    ~McpServer() override;

    // Oldest first; initialize echoes the client's when listed, else answers the last.
    static QStringList supportedProtocolVersions();
    QString protocolVersion() const { return m_protocolVersion; }
    // The name jobs carry in the session's history (the client's clientInfo.name).
    QString clientName() const { return m_clientName; }
    int requestsInFlight() const { return int(m_calls.size()); }
    // How many of this client's jobs were still running when its transport closed (and were ended).
    int jobsEndedOnClose() const { return m_jobsEndedOnClose; }
    // A server of a session that others join (SessionListener): initialize then says which process
    // serves the session and how it measures (SessionIdentity, in _meta), for the CLI to decide
    // whether it may join (issue 23). servedBy: "the workbench window", "hotkernel serve".
    void setServedBy(const QString &servedBy) { m_servedBy = servedBy; }

Q_SIGNALS:
    // initialize named the client (clientInfo.name, or "mcp" when it gave none).
    void clientIdentified(const QString &name);
    // The transport closed and every job this client started has ended (or was given up on).
    void finished();

private:
    struct PendingCall
    {
        Json id;
        quint64 jobId = 0;
        QPointer<Job> job;
        Json progressToken; // null when the request asked for no progress
        std::optional<double> lastProgress;
        QString tool;
    };

    // A request's params as an object (null counts as empty); throws InvalidParams otherwise.
    static const Json &objectParams(const Json &params);
    void handleMessage(const QByteArray &message, bool overlong);
    void handleRequest(const Json &id, const QString &method, const Json &params);
    void handleNotification(const QString &method, const Json &params);
    // prompts/* and resources/*: the skill and the session's files (mcpserverguide.cpp).
    bool handleGuideRequest(const Json &id, const QString &method, const Json &params);
    void watchResources();

    Json initialize(const Json &params);
    // hotkernel/workers and hotkernel/release_spares (SessionPeers): who this session is and its
    // live worker and spare process groups; released: the spares just ended.
    Json workersJson(const QList<long long> &released) const;
    void callTool(const Json &id, const Json &params);
    void cancelRequest(const Json &params);
    void forwardProgress(const std::string &key, double done, std::optional<double> total,
                         const QString &message);
    void answerCall(const std::string &key, quint64 jobId, const ToolResult &result);
    // The result within the tool's context budget (ContextBudget), the full one in a file it names.
    ToolResult sizedForContext(const QString &tool, const ToolResult &result);
    Json toolResultJson(const ToolResult &result) const;

    void sendResult(const Json &id, const Json &result);
    void sendRaw(const Json &id, const std::string &resultText);
    void sendError(const Json &id, int code, const QString &message, const Json &data = nullptr);
    void sendNotification(const char *method, Json params);
    void send(const Json &message);

    void transportClosed();
    void finishWhenJobsEnded();

    bool
    modernResults() const; // 2025-06-18 and later: titles, outputSchema, structuredContent, resource links

    Session &m_session;
    QPointer<McpTransport> m_transport;
    McpResources m_resources;
    ResourceWatcher *m_resourceWatcher = nullptr; // child; started by initialize
    QString m_protocolVersion;
    QString m_clientName = QStringLiteral("mcp");
    QString m_servedBy; // empty: a stdio server, no identity in initialize
    // tools/list bodies, built once: the registry does not change while the server runs.
    std::string m_toolsListModern;
    int m_fullResults = 0; // full results written by this server, for unique file names
    std::string m_toolsListLegacy;
    std::map<std::string, PendingCall> m_calls; // key: the request id as JSON text
    QList<QPointer<Job>> m_endingJobs;
    int m_jobsEndedOnClose = 0;
    bool m_closing = false;
    bool m_finished = false;
};

} // namespace hotkernel
