// SPDX-License-Identifier: Apache-2.0
#include "mcp/mcpserver.h"

#include "base/jsonparse.h"
#include "base/logging.h"
#include "mcp/contextbudget.h"
#include "mcp/mcperror.h"
#include "mcp/mcpguide.h"
#include "mcp/mcptransport.h"
#include "mcp/wireschema.h"
#include "measure/sessionidentity.h"
#include "measure/sessionpeers.h"
#include "measure/workerpool.h"
#include "session/session.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QTimer>

namespace hotkernel {

namespace {

// How long the server waits, after stdin closed, for cancelled jobs to wind down (their process
// groups are killed at once; this only bounds a handler that ignores cancellation).
constexpr int ShutdownGraceMs = 3000;

std::string dumpJson(const Json &value)
{
    // Replace, not throw, on invalid UTF-8: a tool's captured output must not take the server down.
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool isValidId(const Json &id)
{
    return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

Json toolJson(const ToolSpec &spec, bool modern)
{
    Json tool{{"name", toStd(spec.name)}};
    if (modern && !spec.title.isEmpty())
        tool["title"] = toStd(spec.title);
    tool["description"] = toStd(spec.description);
    tool["inputSchema"] = spec.inputSchema.is_object() ? spec.inputSchema : Json{{"type", "object"}};
    if (modern && spec.outputSchema.is_object() && !spec.outputSchema.empty())
        tool["outputSchema"] = WireSchema::compactOutput(spec.outputSchema);
    Json annotations = Json::object();
    if (!modern && !spec.title.isEmpty())
        annotations["title"] = toStd(spec.title); // modern clients read the tool's own title
    annotations["readOnlyHint"] = spec.annotations.readOnly;
    annotations["destructiveHint"] = spec.annotations.destructive;
    annotations["idempotentHint"] = spec.annotations.idempotent;
    annotations["openWorldHint"] = spec.annotations.openWorld;
    tool["annotations"] = annotations;
    return tool;
}

std::string toolsListText(const ToolRegistry &tools, bool modern)
{
    Json list = Json::array();
    for (const ToolSpec &spec : tools.all())
        list.push_back(toolJson(spec, modern));
    return dumpJson(Json{{"tools", list}});
}

} // namespace

McpServer::McpServer(Session &session, McpTransport *transport, QObject *parent)
    : QObject(parent), m_session(session), m_transport(transport), m_resources(session.workDir()),
      m_protocolVersion(supportedProtocolVersions().constLast()),
      m_toolsListModern(toolsListText(session.tools(), true)),
      m_toolsListLegacy(toolsListText(session.tools(), false))
{
    connect(transport, &McpTransport::messageReceived, this, &McpServer::handleMessage);
    connect(transport, &McpTransport::closed, this, &McpServer::transportClosed);
}

McpServer::~McpServer()
{
    for (const auto &[key, call] : m_calls)
        m_session.cancel(call.jobId);
}

QStringList McpServer::supportedProtocolVersions()
{
    return {QStringLiteral("2024-11-05"), QStringLiteral("2025-03-26"), QStringLiteral("2025-06-18"),
            QStringLiteral("2025-11-25")};
}

const Json &McpServer::objectParams(const Json &params)
{
    static const Json empty = Json::object();
    if (params.is_null())
        return empty;
    if (!params.is_object())
        throw McpError(McpError::InvalidParams, QStringLiteral("params must be an object"));
    return params;
}

bool McpServer::modernResults() const
{
    return m_protocolVersion >= QLatin1String("2025-06-18");
}

void McpServer::handleMessage(const QByteArray &message, bool overlong)
{
    if (overlong) {
        sendError(nullptr, McpError::ParseError,
                  QStringLiteral("Parse error: the line is longer than the server accepts"));
        return;
    }
    if (message.trimmed().isEmpty())
        return; // blank lines between messages are harmless
    const JsonParse parsed = parseJsonLimited(message);
    if (parsed.status == JsonParse::Status::TooDeep) {
        // Well-formed but too deep to hold safely: refused, answered under its id when it has one.
        const Json &pruned = parsed.value;
        const Json id = pruned.is_object() && isValidId(pruned.value("id", Json())) ? pruned["id"] : Json();
        sendError(id, McpError::InvalidRequest, QStringLiteral("Invalid request: %1").arg(parsed.error));
        return;
    }
    if (!parsed.ok()) {
        sendError(nullptr, McpError::ParseError, QStringLiteral("Parse error: %1").arg(parsed.error));
        return;
    }
    const Json &msg = parsed.value;
    if (msg.is_array()) {
        sendError(
            nullptr, McpError::InvalidRequest,
            QStringLiteral("Invalid request: JSON-RPC batches are not supported; send one message per line"));
        return;
    }
    if (!msg.is_object()) {
        sendError(nullptr, McpError::InvalidRequest,
                  QStringLiteral("Invalid request: a message must be a JSON object"));
        return;
    }
    const bool hasId = msg.contains("id");
    const Json id = hasId ? msg["id"] : Json(nullptr);
    if (hasId && !isValidId(id)) {
        sendError(nullptr, McpError::InvalidRequest,
                  QStringLiteral("Invalid request: id must be a string or an integer"));
        return;
    }
    if (!msg.contains("method")) {
        if (hasId && (msg.contains("result") || msg.contains("error")))
            return; // a response; this server sends no requests, so nothing waits for it
        sendError(id, McpError::InvalidRequest, QStringLiteral("Invalid request: no method"));
        return;
    }
    if (msg.value("jsonrpc", Json()) != "2.0" || !msg["method"].is_string()) {
        sendError(id, McpError::InvalidRequest,
                  QStringLiteral("Invalid request: expected \"jsonrpc\": \"2.0\" and a string method"));
        return;
    }
    const QString method = toQt(msg["method"].get<std::string>());
    const Json params = msg.value("params", Json());
    if (!hasId) {
        handleNotification(method, params);
        return;
    }
    // One boundary for every handler: protocol faults become JSON-RPC errors, anything else an
    // internal error; the dispatcher itself keeps running.
    try {
        handleRequest(id, method, params);
    } catch (const McpError &e) {
        sendError(id, e.code(), e.message(), e.data());
    } catch (const std::exception &e) {
        qCWarning(lcMcp) << method << "failed:" << e.what();
        sendError(id, McpError::InternalError,
                  QStringLiteral("Internal error: %1").arg(QString::fromUtf8(e.what())));
    } catch (...) {
        sendError(id, McpError::InternalError, QStringLiteral("Internal error"));
    }
}

void McpServer::handleRequest(const Json &id, const QString &method, const Json &params)
{
    if (m_calls.count(dumpJson(id))) {
        throw McpError(McpError::InvalidRequest,
                       QStringLiteral("Invalid request: id %1 is already in use by a request in flight")
                           .arg(toQt(dumpJson(id))));
    }
    if (method == QLatin1String("initialize")) {
        sendResult(id, initialize(objectParams(params)));
    } else if (method == QLatin1String("ping")) {
        sendResult(id, Json::object());
    } else if (method == QLatin1String("tools/list")) {
        objectParams(params);
        sendRaw(id, modernResults() ? m_toolsListModern : m_toolsListLegacy);
    } else if (method == QLatin1String("tools/call")) {
        callTool(id, objectParams(params));
    } else if (method == QLatin1String(SessionPeers::WorkersMethod)) {
        sendResult(id, workersJson({}));
    } else if (method == QLatin1String(SessionPeers::ReleaseSparesMethod)) {
        // Another session's verify needs the card (issue 42); the spares refill after this
        // session's next bench or verify.
        const QList<long long> released = m_session.workers().releaseSpares();
        qCInfo(lcMcp).noquote() << m_clientName << "asked for the card:" << released.size()
                                << "spare worker(s) ended";
        sendResult(id, workersJson(released));
    } else if (handleGuideRequest(id, method, params)) {
        // prompts/* and resources/*
    } else {
        throw McpError(McpError::MethodNotFound, QStringLiteral("Method not found: %1").arg(method));
    }
}

void McpServer::handleNotification(const QString &method, const Json &params)
{
    if (method == QLatin1String("notifications/cancelled")) {
        if (params.is_object())
            cancelRequest(params);
    } else if (method == QLatin1String("notifications/initialized")) {
        qCDebug(lcMcp) << "client initialized";
    } else {
        qCDebug(lcMcp) << "ignoring notification" << method;
    }
}

Json McpServer::workersJson(const QList<long long> &released) const
{
    const QString servedBy = m_servedBy.isEmpty() ? QStringLiteral("hotkernel mcp") : m_servedBy;
    const Json identity = SessionIdentity::of(m_session.hostDisplay(), servedBy);
    Json workers = Json::array();
    for (const auto &[group, role] : m_session.workers().processes())
        workers.push_back(Json{{"group", group}, {"role", toStd(role)}});
    Json releasedJson = Json::array();
    for (const long long group : released)
        releasedJson.push_back(group);
    return Json{{"identity", identity},
                {"dir", toStd(m_session.workDir().root())},
                {"how_to_end", toStd(SessionIdentity::howToEnd(identity))},
                {"workers", std::move(workers)},
                {"released", std::move(releasedJson)}};
}

Json McpServer::initialize(const Json &params)
{
    const QString requested = stringField(params, "protocolVersion");
    const QStringList supported = supportedProtocolVersions();
    m_protocolVersion = supported.contains(requested) ? requested : supported.constLast();
    if (params.contains("clientInfo")) {
        const QString name = stringField(params["clientInfo"], "name");
        if (!name.isEmpty())
            m_clientName = name;
    }
    qCInfo(lcMcp) << "initialize from" << m_clientName << "asking" << requested << "->" << m_protocolVersion;
    // Queued: listeners hear of the client after its initialize is answered.
    QTimer::singleShot(0, this, [this] { Q_EMIT clientIdentified(m_clientName); });
    watchResources();
    Json result{
        {"protocolVersion", toStd(m_protocolVersion)},
        {"capabilities",
         {{"tools", {{"listChanged", false}}},
          {"resources", {{"subscribe", false}, {"listChanged", true}}},
          {"prompts", {{"listChanged", false}}}}},
        {"serverInfo", {{"name", "hotkernel"}, {"title", "hotkernel"}, {"version", HOTKERNEL_VERSION}}},
        {"instructions", toStd(McpGuide::instructions(m_session.tools()))}};
    if (!m_servedBy.isEmpty())
        result["_meta"] =
            Json{{SessionIdentity::MetaKey, SessionIdentity::of(m_session.hostDisplay(), m_servedBy)}};
    return result;
}

void McpServer::callTool(const Json &id, const Json &params)
{
    if (!params.contains("name") || !params["name"].is_string())
        throw McpError(McpError::InvalidParams,
                       QStringLiteral("tools/call needs params.name, a string (see tools/list)"));
    const QString name = toQt(params["name"].get<std::string>());
    const ToolSpec *spec = m_session.tools().find(name);
    if (!spec) {
        QStringList names;
        for (const ToolSpec &s : m_session.tools().all())
            names.append(s.name);
        throw McpError(
            McpError::InvalidParams,
            QStringLiteral("Unknown tool: %1. Tools: %2.").arg(name, names.join(QStringLiteral(", "))));
    }
    const Json arguments = params.value("arguments", Json::object());
    if (!arguments.is_object())
        throw McpError(McpError::InvalidParams,
                       QStringLiteral("tools/call params.arguments must be an object"));
    Json progressToken;
    if (params.contains("_meta")) {
        const Json &meta = params["_meta"];
        if (!meta.is_object())
            throw McpError(McpError::InvalidParams, QStringLiteral("params._meta must be an object"));
        if (meta.contains("progressToken")) {
            progressToken = meta["progressToken"];
            if (!isValidId(progressToken))
                throw McpError(McpError::InvalidParams,
                               QStringLiteral("_meta.progressToken must be a string or an integer"));
        }
    }
    if (m_closing)
        return; // the client is gone; nobody would read the answer

    Job *job = m_session.start(name, arguments, m_clientName);
    const std::string key = dumpJson(id);
    const quint64 jobId = job->id();
    m_calls[key] = PendingCall{id, jobId, job, progressToken, std::nullopt, name};
    qCInfo(lcMcp).noquote() << "tools/call" << name << "id" << toQt(key) << "-> job" << jobId;
    connect(job, &Job::finished, this,
            [this, key, jobId](const ToolResult &result) { answerCall(key, jobId, result); });
    if (!progressToken.is_null()) {
        connect(job, &Job::progressChanged, this,
                [this, key](double done, std::optional<double> total, const QString &message) {
                    forwardProgress(key, done, total, message);
                });
    }
}

void McpServer::cancelRequest(const Json &params)
{
    const Json requestId = params.value("requestId", Json());
    const auto it = m_calls.find(dumpJson(requestId));
    if (it == m_calls.end())
        return; // finished already, or never ours: the spec says to ignore it
    const quint64 jobId = it->second.jobId;
    qCInfo(lcMcp).noquote() << "cancelled by the client: id" << toQt(it->first) << "job" << jobId
                            << stringField(params, "reason");
    // Forget the request first: a cancelled request is never answered.
    m_calls.erase(it);
    m_session.cancel(jobId);
}

void McpServer::forwardProgress(const std::string &key, double done, std::optional<double> total,
                                const QString &message)
{
    const auto it = m_calls.find(key);
    if (it == m_calls.end())
        return;
    PendingCall &call = it->second;
    // MCP requires progress to increase with every notification; a tool that restarts its count
    // (waiting for the GPU, then the runs) only reports once it passes what was already said.
    if (call.lastProgress && done <= *call.lastProgress)
        return;
    call.lastProgress = done;
    Json params{{"progressToken", call.progressToken}, {"progress", done}};
    if (total)
        params["total"] = *total;
    if (!message.isEmpty())
        params["message"] = toStd(message);
    sendNotification("notifications/progress", std::move(params));
}

void McpServer::answerCall(const std::string &key, quint64 jobId, const ToolResult &result)
{
    const auto it = m_calls.find(key);
    if (it == m_calls.end() || it->second.jobId != jobId)
        return; // cancelled by the client: no reply
    const Json id = it->second.id;
    const QString tool = it->second.tool;
    m_calls.erase(it);
    sendResult(id, toolResultJson(sizedForContext(tool, result)));
}

ToolResult McpServer::sizedForContext(const QString &tool, const ToolResult &result)
{
    // hotkernel's own CLI joining a session (SessionClient) prints results whole, as it does alone.
    if (result.isError || !modernResults() || !result.structured.is_object() ||
        m_clientName.startsWith(QLatin1String("hotkernel CLI")))
        return result;
    const qsizetype budget = ContextBudget::budgetFor(tool);
    const std::string full = result.structured.dump(2, ' ', false, Json::error_handler_t::replace);
    if (ContextBudget::compactSize(result.structured) <= budget)
        return result;
    // The full result where resources/read serves it (profiles/ is listed recursively). A few
    // tens of kB written once per oversized result: small enough for the main thread.
    const QString relative =
        QStringLiteral("profiles/results/%1-%2-%3.json")
            .arg(tool, QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss")))
            .arg(++m_fullResults);
    const QString absolute = m_session.workDir().absolute(relative);
    QDir().mkpath(QFileInfo(absolute).path());
    QSaveFile file(absolute);
    const bool written = file.open(QIODevice::WriteOnly) &&
                         file.write(full.data(), qint64(full.size())) == qint64(full.size()) && file.commit();
    // Room for the note itself: the path, the URI and a few lines on what was cut.
    constexpr qsizetype NoteBytes = 600;
    ContextBudget::Fitted fitted = ContextBudget::fit(result.structured, budget - NoteBytes);
    Json note{{"bytes", full.size()}, {"shortened", toJson(fitted.shortened)}};
    if (written) {
        note["path"] = toStd(relative);
        note["uri"] = toStd(McpResources::uriFor(relative));
    } else {
        note["error"] = toStd(QStringLiteral("could not write %1 (%2): the text content has the details")
                                  .arg(relative, file.errorString()));
    }
    fitted.structured["full_result"] = std::move(note);
    ToolResult out = result;
    out.structured = std::move(fitted.structured);
    if (written)
        out.resourceLinks.append(McpResources::uriFor(relative));
    // A shortened verify given back whole to record stands for the full result (its id).
    if (const std::string id = out.structured.value("verify_id", std::string()); !id.empty())
        m_session.resultIds().addShortened(toQt(id), out.structured);
    return out;
}

Json McpServer::toolResultJson(const ToolResult &result) const
{
    Json content = Json::array();
    const std::string text = result.text.isEmpty()
                                 ? result.structured.dump(2, ' ', false, Json::error_handler_t::replace)
                                 : toStd(result.text);
    content.push_back(Json{{"type", "text"}, {"text", text}});
    if (modernResults()) {
        for (const QString &uri : result.resourceLinks) {
            content.push_back(Json{{"type", "resource_link"},
                                   {"uri", toStd(uri)},
                                   {"name", toStd(QFileInfo(uri).fileName())},
                                   {"mimeType", toStd(McpResources::mimeTypeFor(uri))}});
        }
    }
    Json reply{{"content", content}};
    // Never on an error: clients (the TypeScript SDK) check any structuredContent against the
    // tool's outputSchema, which describes success, and would replace our message with theirs.
    if (modernResults() && !result.isError && result.structured.is_object())
        reply["structuredContent"] = result.structured;
    reply["isError"] = result.isError;
    return reply;
}

void McpServer::sendResult(const Json &id, const Json &result)
{
    send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

void McpServer::sendRaw(const Json &id, const std::string &resultText)
{
    if (!m_transport)
        return;
    // Splices a prebuilt result: tools/list is asked often and never changes.
    const std::string text =
        "{\"jsonrpc\":\"2.0\",\"id\":" + dumpJson(id) + ",\"result\":" + resultText + "}";
    m_transport->send(QByteArray::fromStdString(text));
}

void McpServer::sendError(const Json &id, int code, const QString &message, const Json &data)
{
    Json error{{"code", code}, {"message", toStd(message)}};
    if (!data.is_null())
        error["data"] = data;
    qCDebug(lcMcp) << "error" << code << message;
    send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", error}});
}

void McpServer::sendNotification(const char *method, Json params)
{
    send(Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void McpServer::send(const Json &message)
{
    if (m_transport)
        m_transport->send(QByteArray::fromStdString(dumpJson(message)));
}

void McpServer::transportClosed()
{
    if (m_closing)
        return;
    m_closing = true;
    // The agent is gone: end what it started (killing the process groups), answer nothing more.
    for (const auto &[key, call] : m_calls) {
        if (call.job && call.job->state() == Job::State::Running) {
            m_endingJobs.append(call.job);
            connect(call.job.data(), &Job::finished, this, &McpServer::finishWhenJobsEnded);
            connect(call.job.data(), &QObject::destroyed, this, &McpServer::finishWhenJobsEnded);
        }
        m_session.cancel(call.jobId);
    }
    m_calls.clear();
    m_jobsEndedOnClose = int(m_endingJobs.size());
    qCInfo(lcMcp) << "client gone; ending" << m_endingJobs.size() << "job(s)";
    QTimer::singleShot(ShutdownGraceMs, this, [this] {
        if (!m_finished)
            qCWarning(lcMcp) << "jobs still running" << ShutdownGraceMs
                             << "ms after the client left; exiting anyway";
        m_endingJobs.clear();
        finishWhenJobsEnded();
    });
    QTimer::singleShot(0, this, &McpServer::finishWhenJobsEnded);
}

void McpServer::finishWhenJobsEnded()
{
    if (m_finished || !m_closing)
        return;
    for (const QPointer<Job> &job : std::as_const(m_endingJobs)) {
        if (job && job->state() == Job::State::Running)
            return;
    }
    m_finished = true;
    Q_EMIT finished();
}

} // namespace hotkernel
