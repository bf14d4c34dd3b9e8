// SPDX-License-Identifier: Apache-2.0
// `hotkernel mcp` attached to a workbench: passes the agent's lines to the workbench's session
// and its answers back, unchanged (issue 6). Main thread; both transports are not owned.
#pragma once

#include "base/json.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <map>
#include <string>

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
    // The notification a workbench sends its agents just before it exits on a signal, with
    // params.reason ("the workbench window exited (signal 15, SIGTERM)"); the relay keeps it for
    // the answers it then gives in the workbench's place, and does not pass it on.
    static const char *exitNoticeMethod() { return "notifications/hotkernel/workbench_exiting"; }

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
    // Notes requests (and cancellations) on their way to the workbench, answers on their way back.
    void trackFromAgent(const QByteArray &line);
    bool trackFromWorkbench(const QByteArray &line); // false: swallow the line
    // Every request the workbench left unanswered gets an answer naming why (issue 18).
    void answerPending(const QString &reason);

    struct Pending
    {
        Json id;
        QString method;
        QString tool; // for tools/call
    };
    std::map<std::string, Pending> m_pending; // by the id's JSON text
    QString m_exitReason;

    QPointer<McpTransport> m_agent;
    QPointer<McpTransport> m_workbench;
    QTimer m_drainTimeout;
    bool m_draining = false;
    bool m_finished = false;
};

} // namespace hotkernel
