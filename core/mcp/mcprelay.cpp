// SPDX-License-Identifier: Apache-2.0
#include "mcp/mcprelay.h"

#include "base/json.h"
#include "base/logging.h"
#include "mcp/mcperror.h"
#include "mcp/mcptransport.h"

#include <unistd.h>

namespace hotkernel {

namespace {
// How long a relay whose agent left waits for the workbench to answer what came before; only a
// hung workbench makes it wait this long.
constexpr int DrainTimeoutMs = 3000;
} // namespace

McpRelay::McpRelay(McpTransport *agent, McpTransport *workbench, QObject *parent)
    : QObject(parent), m_agent(agent), m_workbench(workbench)
{
    connect(agent, &McpTransport::messageReceived, this, &McpRelay::fromAgent);
    connect(agent, &McpTransport::closed, this, &McpRelay::agentClosed);
    connect(workbench, &McpTransport::messageReceived, this, &McpRelay::fromWorkbench);
    connect(workbench, &McpTransport::closed, this, &McpRelay::workbenchClosed);
    m_drainTimeout.setSingleShot(true);
    m_drainTimeout.setInterval(DrainTimeoutMs);
    connect(&m_drainTimeout, &QTimer::timeout, this, [this] {
        qCWarning(lcMcp) << "the workbench did not answer within" << DrainTimeoutMs << "ms; letting go";
        finish(0, {});
    });
}

QByteArray McpRelay::drainId()
{
    return "hotkernel-relay-drain-" + QByteArray::number(qint64(::getpid()));
}

void McpRelay::fromAgent(const QByteArray &line, bool overlong)
{
    if (m_finished || !m_workbench)
        return;
    if (overlong) {
        // The bytes are gone; answer as the server would have, without a round trip.
        const Json error{{"jsonrpc", "2.0"},
                         {"id", nullptr},
                         {"error",
                          {{"code", int(McpError::ParseError)},
                           {"message", "Parse error: the line is longer than the server accepts"}}}};
        if (m_agent)
            m_agent->send(QByteArray::fromStdString(error.dump()));
        return;
    }
    trackFromAgent(line);
    m_workbench->send(line);
}

void McpRelay::trackFromAgent(const QByteArray &line)
{
    // Cheap test first: only requests (an id and a method) and cancellations matter here.
    if (!line.contains("\"method\""))
        return;
    const std::optional<Json> message = parseJson(line);
    if (!message || !message->is_object())
        return;
    const QString method = stringField(*message, "method");
    if (method == QLatin1String("notifications/cancelled")) {
        // A cancelled request is never answered, by the workbench or by us.
        const Json params = message->value("params", Json::object());
        if (params.is_object() && params.contains("requestId"))
            m_pending.erase(params["requestId"].dump());
        return;
    }
    if (!message->contains("id") || method.isEmpty())
        return;
    const Json &id = (*message)["id"];
    if (!id.is_string() && !id.is_number_integer())
        return; // the workbench answers that one with an error at once
    Pending pending{id, method, {}};
    if (method == QLatin1String("tools/call")) {
        const Json params = message->value("params", Json::object());
        if (params.is_object())
            pending.tool = stringField(params, "name");
    }
    m_pending[id.dump()] = std::move(pending);
}

bool McpRelay::trackFromWorkbench(const QByteArray &line)
{
    if (line.contains(exitNoticeMethod())) {
        const std::optional<Json> message = parseJson(line);
        if (message && message->is_object() &&
            stringField(*message, "method") == QLatin1String(exitNoticeMethod())) {
            const Json params = message->value("params", Json::object());
            m_exitReason = params.is_object() ? stringField(params, "reason") : QString();
            return false;
        }
    }
    if (m_pending.empty() || !line.contains("\"id\""))
        return true;
    const std::optional<Json> message = parseJson(line);
    if (message && message->is_object() && message->contains("id") && !message->contains("method"))
        m_pending.erase((*message)["id"].dump());
    return true;
}

void McpRelay::answerPending(const QString &reason)
{
    if (!m_agent)
        return;
    for (const auto &[key, pending] : m_pending) {
        Json answer{{"jsonrpc", "2.0"}, {"id", pending.id}};
        if (pending.method == QLatin1String("tools/call")) {
            const QString text =
                QStringLiteral("%1; your %2 was ended. Run it again: `hotkernel mcp` serves "
                               "the session headless, or attaches to a window opened anew.")
                    .arg(reason, pending.tool.isEmpty() ? QStringLiteral("call") : pending.tool);
            answer["result"] = Json{{"content", Json::array({Json{{"type", "text"}, {"text", toStd(text)}}})},
                                    {"isError", true}};
        } else {
            answer["error"] =
                Json{{"code", int(McpError::InternalError)},
                     {"message", toStd(QStringLiteral("%1; the request was not answered").arg(reason))}};
        }
        m_agent->send(QByteArray::fromStdString(answer.dump()));
    }
    m_pending.clear();
}

void McpRelay::fromWorkbench(const QByteArray &line, bool overlong)
{
    if (m_finished || overlong)
        return; // the workbench keeps the same line cap, so an overlong line cannot be an answer
    if (m_draining && line.contains(drainId())) {
        const std::optional<Json> message = parseJson(line);
        if (message && message->is_object() && message->value("id", Json()) == drainId().toStdString()) {
            finish(0, {});
            return;
        }
    }
    if (!trackFromWorkbench(line))
        return;
    if (m_agent)
        m_agent->send(line);
}

void McpRelay::agentClosed()
{
    if (m_finished || m_draining)
        return;
    if (!m_workbench) {
        finish(0, {});
        return;
    }
    // Requests answered at once still reach the agent, as when the session runs in-process:
    // the ping's answer comes after theirs. Running tool calls end when we disconnect.
    m_draining = true;
    const Json ping{{"jsonrpc", "2.0"}, {"id", drainId().toStdString()}, {"method", "ping"}};
    m_workbench->send(QByteArray::fromStdString(ping.dump()));
    m_drainTimeout.start();
}

void McpRelay::workbenchClosed()
{
    if (m_finished)
        return;
    if (m_draining) {
        finish(0, {});
        return;
    }
    // A workbench that exits on a signal says so first; one killed outright (kill -9, a crash)
    // cannot, and the relay is not its parent, so it knows no more than that it is gone.
    const QString reason = !m_exitReason.isEmpty()
                               ? m_exitReason
                               : tr("the hotkernel workbench closed the connection without saying why (its "
                                    "window was killed or crashed)");
    answerPending(reason);
    finish(1, reason + tr("; the session's jobs for this agent ended with it"));
}

void McpRelay::finish(int exitCode, const QString &reason)
{
    if (m_finished)
        return;
    m_finished = true;
    m_drainTimeout.stop();
    if (m_workbench)
        m_workbench->close();
    if (m_agent && exitCode != 0)
        m_agent->close();
    Q_EMIT finished(exitCode, reason);
}

} // namespace hotkernel
