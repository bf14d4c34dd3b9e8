// SPDX-License-Identifier: Apache-2.0
#include "mcp/sessionlistener.h"

#include "base/logging.h"
#include "mcp/localsockettransport.h"
#include "mcp/mcprelay.h"
#include "mcp/mcpserver.h"
#include "measure/workerpool.h"
#include "process/processancestry.h"
#include "process/runtimedir.h"
#include "process/terminationsignals.h"
#include "session/session.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTimer>

#include <unistd.h>

namespace hotkernel {

namespace {
// A live workbench accepts a local connection at once; this only bounds a hung one.
constexpr int ProbeTimeoutMs = 1000;
} // namespace

SessionListener::SessionListener(Session &session, QString servedBy, QObject *parent)
    : QObject(parent), m_session(session), m_servedBy(std::move(servedBy)), m_dir(session.workDir().root()),
      m_name(socketName(m_dir, &m_nameError)), m_server(new QLocalServer(this))
{
    // Only this user may connect: the socket hands out a session that runs code.
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    connect(m_server, &QLocalServer::newConnection, this, &SessionListener::acceptConnections);
}

SessionListener::~SessionListener()
{
    // Agents learn why their pending calls end (their relays answer them with it).
    announce(tr("the workbench window was closed"));
    // Servers first: their destructors cancel what their clients still had running.
    for (auto &[server, client] : m_clients) {
        server->disconnect(this);
        delete client.server;
        delete client.transport;
    }
    m_clients.clear();
    m_server->close(); // removes the socket file
}

QString SessionListener::socketName(const QString &canonicalDir, QString *error)
{
    const QString runtime = RuntimeDir::path(error);
    if (runtime.isEmpty())
        return {};
    const QByteArray hash =
        QCryptographicHash::hash(canonicalDir.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    // An absolute path, so both sides agree whatever Qt's default directory for names is. Inside a
    // directory only this user can write, so another user can neither squat the name nor make a
    // window believe that another workbench owns this directory (issue 18).
    return QDir(runtime).filePath(QStringLiteral("hotkernel-%1").arg(QString::fromLatin1(hash)));
}

bool SessionListener::isListening() const
{
    return m_server->isListening();
}

void SessionListener::start()
{
    if (m_server->isListening() || m_probe)
        return;
    if (m_name.isEmpty()) {
        QTimer::singleShot(0, this, [this] { Q_EMIT listenFailed(m_nameError); });
        return;
    }
    // Probe before listening: with UserAccessOption Qt renames its socket over whatever file has
    // the name, so listen() alone would silently steal the socket of a live workbench.
    probeExisting();
}

bool SessionListener::tryListen()
{
    if (!m_server->listen(m_name))
        return false;
    qCInfo(lcMcp).noquote() << "agents attach to this session at" << m_name;
    Q_EMIT listening(m_name);
    return true;
}

void SessionListener::probeExisting()
{
    // A workbench that answers owns the directory; a socket nobody answers was left behind by
    // one that crashed, and is ours to replace.
    m_probe = new QLocalSocket(this);
    QLocalSocket *probe = m_probe;
    auto *timeout = new QTimer(probe);
    timeout->setSingleShot(true);
    auto settle = [this, probe](bool answered) {
        if (m_probe != probe)
            return;
        m_probe = nullptr;
        probe->disconnect(this);
        probe->abort();
        probe->deleteLater();
        if (answered) {
            Q_EMIT listenFailed(tr("another hotkernel workbench already owns %1 (socket %2); agents "
                                   "attach to that one")
                                    .arg(QDir::toNativeSeparators(m_dir), m_name));
            return;
        }
        if (QFileInfo::exists(m_name)) {
            qCInfo(lcMcp).noquote() << "replacing the stale socket" << m_name;
            QLocalServer::removeServer(m_name);
        }
        if (!tryListen())
            Q_EMIT listenFailed(tr("cannot listen on %1: %2").arg(m_name, m_server->errorString()));
    };
    connect(probe, &QLocalSocket::connected, this, [settle] { settle(true); });
    connect(probe, &QLocalSocket::errorOccurred, this, [settle](QLocalSocket::LocalSocketError error) {
        // Refused or absent: nobody listens. Anything else (a full backlog, a timeout) means a
        // live but busy owner, which must not lose its socket.
        settle(error != QLocalSocket::ConnectionRefusedError && error != QLocalSocket::ServerNotFoundError);
    });
    connect(timeout, &QTimer::timeout, this, [settle] { settle(true); });
    timeout->start(ProbeTimeoutMs);
    probe->connectToServer(m_name);
}

void SessionListener::announceExit(int signal)
{
    // Named as the front-end that serves (the window, `hotkernel serve`), not always the window.
    announce(m_servedBy + QStringLiteral(" exited (signal ") + QString::number(signal) +
             QStringLiteral(", ") + TerminationSignals::name(signal) + QLatin1Char(')'));
    for (auto &[server, client] : m_clients)
        client.transport->close();
    m_server->close();
}

void SessionListener::announce(const QString &reason)
{
    const Json notice{{"jsonrpc", "2.0"},
                      {"method", McpRelay::exitNoticeMethod()},
                      {"params", {{"reason", toStd(reason)}}}};
    const QByteArray line = QByteArray::fromStdString(notice.dump());
    for (auto &[server, client] : m_clients) {
        client.transport->send(line);
        client.transport->flush();
    }
}

QString SessionListener::refusal(long long peerPid) const
{
    QList<long long> workers;
    if (m_workerProcesses) {
        workers = m_workerProcesses();
    } else {
        for (const auto &[group, role] : m_session.workers().processes())
            workers << group;
    }
    if (peerPid <= 0)
        return tr("this session cannot tell which process is calling (no peer credentials on the "
                  "socket), so it refuses the call: a worker's process tree may not call its session");
    const long long worker = ProcessAncestry::descendsFrom(peerPid, workers);
    if (worker < 0)
        return {};
    return tr("process %1 descends from process %2, a worker of this session (a script under "
              "measurement): a benchmarked script may not call the session that measures it (issue 41: "
              "it could calibrate or record for itself). Call hotkernel from the agent or a shell, not "
              "from a target script")
        .arg(peerPid)
        .arg(worker);
}

void SessionListener::acceptConnections()
{
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
        // Issue 41: the peer's pid from the kernel (SO_PEERCRED), not anything it says.
        if (const QString why = refusal(ProcessAncestry::peerPid(socket->socketDescriptor()));
            !why.isEmpty()) {
            qCWarning(lcMcp).noquote() << "refused a connection:" << why;
            // The relay keeps this notice as the reason it answers every call with, then the
            // connection closes before any request is read.
            const Json notice{{"jsonrpc", "2.0"},
                              {"method", McpRelay::exitNoticeMethod()},
                              {"params", {{"reason", toStd(why)}}}};
            socket->write(QByteArray::fromStdString(notice.dump()) + '\n');
            socket->flush();
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            socket->disconnectFromServer();
            continue;
        }
        auto *transport = new LocalSocketTransport(socket);
        auto *server = new McpServer(m_session, transport);
        server->setServedBy(m_servedBy);
        m_clients[server] = Client{transport, server, false};
        connect(server, &McpServer::clientIdentified, this, [this, server](const QString &name) {
            const auto it = m_clients.find(server);
            if (it == m_clients.end() || it->second.identified)
                return;
            it->second.identified = true;
            qCInfo(lcMcp).noquote() << "agent" << name << "attached";
            Q_EMIT clientAttached(name);
        });
        connect(server, &McpServer::finished, this, [this, server] { clientFinished(server); });
    }
}

void SessionListener::clientFinished(McpServer *server)
{
    const auto it = m_clients.find(server);
    if (it == m_clients.end())
        return;
    const Client client = it->second;
    m_clients.erase(it);
    const QString name = server->clientName();
    const int ended = server->jobsEndedOnClose();
    // Not from inside the server's own signal.
    client.server->deleteLater();
    client.transport->deleteLater();
    // A connection that never said who it was and left nothing behind (a probe) is not news.
    if (client.identified || ended > 0) {
        qCInfo(lcMcp).noquote() << "agent" << name << "disconnected;" << ended << "job(s) ended";
        Q_EMIT clientDetached(name, ended);
    }
}

} // namespace hotkernel
