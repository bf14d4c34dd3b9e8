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
    m_workbench->send(line);
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
    finish(1, tr("the hotkernel workbench closed the connection (its window was closed?); the "
                 "session's jobs for this agent ended with it"));
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
