// SPDX-License-Identifier: Apache-2.0
// `hotkernel mcp` attached to a workbench: passes the agent's lines to the workbench's session
// and its answers back, unchanged (issue 6). Main thread; both transports are not owned.
#pragma once

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace hotkernel {

class McpTransport;

class McpRelay : public QObject
{
    Q_OBJECT
public:
    McpRelay(McpTransport *agent, McpTransport *workbench, QObject *parent = nullptr);

    // The id of the ping the relay sends, once the agent has gone, to learn that the workbench
    // answered everything the agent sent before it (answers keep the order of requests).
    static QByteArray drainId();

Q_SIGNALS:
    // exitCode 0: the agent closed its end and the workbench connection was let go.
    // Non-zero: the workbench went away first; reason says so, for stderr.
    void finished(int exitCode, const QString &reason);

private:
    void fromAgent(const QByteArray &line, bool overlong);
    void fromWorkbench(const QByteArray &line, bool overlong);
    void agentClosed();
    void workbenchClosed();
    void finish(int exitCode, const QString &reason);

    QPointer<McpTransport> m_agent;
    QPointer<McpTransport> m_workbench;
    QTimer m_drainTimeout;
    bool m_draining = false;
    bool m_finished = false;
};

} // namespace hotkernel
