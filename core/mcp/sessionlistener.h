// SPDX-License-Identifier: Apache-2.0
// Offers a Session to agents: a QLocalServer named after the session's working directory, one
// McpServer per connection, so `hotkernel mcp` started by an agent drives the session the window
// shows (issue 6). Lives on the Session's (main) thread; nothing here waits.
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <map>

class QLocalServer;
class QLocalSocket;

namespace hotkernel {

class LocalSocketTransport;
class McpServer;
class Session;

class SessionListener : public QObject
{
    Q_OBJECT
public:
    // servedBy names this process to clients that join (SessionIdentity): "the workbench window",
    // "hotkernel serve".
    explicit SessionListener(Session &session, QString servedBy = QStringLiteral("the workbench window"),
                             QObject *parent = nullptr);
    ~SessionListener() override;

    // The socket both sides use for a working directory (canonical path): per directory, in the
    // per-user runtime directory no other user can write (process/runtimedir.h), e.g.
    // $XDG_RUNTIME_DIR/hotkernel-3f2a... or /tmp/hotkernel-1000/hotkernel-3f2a...; `hotkernel mcp`
    // computes the same. Empty, with *error saying why, when that directory is unusable.
    static QString socketName(const QString &canonicalDir, QString *error = nullptr);

    // Starts listening; listening() or listenFailed() follows, on a later event-loop turn: the
    // name is probed first (a live workbench keeps it; a stale socket left by a crashed one is
    // replaced), without blocking.
    void start();
    bool isListening() const;
    QString socketPath() const { return m_name; }
    // Before the workbench exits on a signal: tells every attached agent why (their relays answer
    // the calls left pending with it), closes their connections (which ends their jobs) and stops
    // listening.
    void announceExit(int signal);
    // Clients connected right now, identified (initialize seen) or not.
    int clientCount() const { return int(m_clients.size()); }
    // Issue 41: the pids whose process trees may not call this session (default: the supervisors
    // of the session's workers and spares, WorkerPool::processes()). Tests name a stand-in.
    void setWorkerProcesses(std::function<QList<long long>()> processes)
    {
        m_workerProcesses = std::move(processes);
    }
    // Why a client with this pid is refused (it descends from a worker), or empty.
    QString refusal(long long peerPid) const;

Q_SIGNALS:
    void listening(const QString &socketPath);
    void listenFailed(const QString &reason);
    // An agent said who it is (clientInfo.name in initialize).
    void clientAttached(const QString &name);
    // That agent's connection closed; jobsEnded of its jobs were still running and were ended.
    void clientDetached(const QString &name, int jobsEnded);

private:
    struct Client
    {
        LocalSocketTransport *transport = nullptr;
        McpServer *server = nullptr;
        bool identified = false;
    };

    // Sends every client the notice its relay keeps as the reason for what it answers later.
    void announce(const QString &reason);
    bool tryListen();
    void probeExisting();
    void acceptConnections();
    void clientFinished(McpServer *server);

    Session &m_session;
    QString m_servedBy;
    QString m_dir;
    QString m_nameError; // why m_name is empty; before m_name, which fills it while initialised
    QString m_name;
    QLocalServer *m_server;
    QPointer<QLocalSocket> m_probe;
    std::function<QList<long long>()> m_workerProcesses;
    std::map<McpServer *, Client> m_clients;
};

} // namespace hotkernel
