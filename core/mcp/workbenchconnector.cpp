// SPDX-License-Identifier: Apache-2.0
#include "mcp/workbenchconnector.h"

#include <QLocalSocket>

#include <cerrno>
#include <csignal>

#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

namespace hotkernel {

namespace {
constexpr int RetryIntervalMs = 200;
// A live workbench accepts a local connection at once; this only bounds a hung one.
constexpr int AttemptTimeoutMs = 2000;

bool processAlive(qint64 pid)
{
    return ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
}

// Who is at the other end of a connected local socket; -1 when the system does not say.
qint64 peerUid(const QLocalSocket &socket)
{
#ifdef SO_PEERCRED
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (::getsockopt(int(socket.socketDescriptor()), SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0)
        return qint64(credentials.uid);
#else
    Q_UNUSED(socket)
#endif
    return -1;
}
} // namespace

WorkbenchConnector::WorkbenchConnector(QString socketName, QObject *parent)
    : QObject(parent), m_name(std::move(socketName))
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &WorkbenchConnector::attempt);
}

void WorkbenchConnector::start(int patienceMs, qint64 watchPid)
{
    m_patienceMs = patienceMs;
    m_watchPid = watchPid;
    m_clock.start();
    attempt();
}

void WorkbenchConnector::attempt()
{
    if (m_socket)
        return;
    auto *socket = new QLocalSocket(this);
    m_socket = socket;
    auto *timeout = new QTimer(socket);
    timeout->setSingleShot(true);
    connect(socket, &QLocalSocket::connected, this, [this, socket] { succeed(socket); });
    connect(socket, &QLocalSocket::errorOccurred, this,
            [this, socket] { abandon(socket, socket->errorString()); });
    connect(timeout, &QTimer::timeout, this,
            [this, socket] { abandon(socket, tr("no answer within %1 ms").arg(AttemptTimeoutMs)); });
    timeout->start(AttemptTimeoutMs);
    socket->connectToServer(m_name);
}

void WorkbenchConnector::abandon(QLocalSocket *socket, const QString &reason)
{
    if (m_socket != socket)
        return; // an attempt already settled
    m_socket = nullptr;
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
    attemptFailed(reason);
}

void WorkbenchConnector::attemptFailed(const QString &reason)
{
    if (m_watchPid > 0 && !processAlive(m_watchPid)) {
        Q_EMIT failed(
            tr("the workbench (pid %1) exited before it listened on %2").arg(m_watchPid).arg(m_name));
        return;
    }
    if (m_clock.elapsed() + RetryIntervalMs >= m_patienceMs) {
        Q_EMIT failed(m_patienceMs > 0 ? tr("no workbench listened on %1 within %2 s (%3)")
                                             .arg(m_name)
                                             .arg(m_patienceMs / 1000.0, 0, 'f', 0)
                                             .arg(reason)
                                       : tr("no workbench at %1 (%2)").arg(m_name, reason));
        return;
    }
    m_retry.start(RetryIntervalMs);
}

void WorkbenchConnector::succeed(QLocalSocket *socket)
{
    if (m_socket != socket)
        return;
    m_socket = nullptr;
    socket->disconnect(this);
    for (QTimer *t : socket->findChildren<QTimer *>(Qt::FindDirectChildrenOnly))
        delete t;
    // The name is predictable: a socket another user put there must not receive our requests.
    const qint64 uid = peerUid(*socket);
    if (uid >= 0 && uid != qint64(::getuid())) {
        socket->abort();
        socket->deleteLater();
        Q_EMIT failed(tr("refusing %1: it belongs to user id %2, not to this user").arg(m_name).arg(uid));
        return;
    }
    socket->setParent(nullptr);
    Q_EMIT connected(socket);
}

} // namespace hotkernel
