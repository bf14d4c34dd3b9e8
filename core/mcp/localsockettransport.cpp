// SPDX-License-Identifier: Apache-2.0
#include "mcp/localsockettransport.h"

#include "base/logging.h"
#include "mcp/mcplimits.h"

#include <QLocalSocket>
#include <QTimer>

namespace hotkernel {

LocalSocketTransport::LocalSocketTransport(QLocalSocket *socket, QObject *parent)
    : McpTransport(parent), m_socket(socket)
{
    socket->setParent(this);
    connect(socket, &QLocalSocket::readyRead, this, &LocalSocketTransport::readAvailable);
    connect(socket, &QLocalSocket::disconnected, this, &LocalSocketTransport::peerDisconnected);
    // Bytes may have arrived before we connected to readyRead, and the peer may even be gone.
    QTimer::singleShot(0, this, [this] {
        readAvailable();
        if (m_socket && m_socket->state() != QLocalSocket::ConnectedState)
            peerDisconnected();
    });
}

LocalSocketTransport::~LocalSocketTransport()
{
    if (m_socket)
        m_socket->disconnect(this);
}

void LocalSocketTransport::send(const QByteArray &message)
{
    if (!m_socket || m_socket->state() != QLocalSocket::ConnectedState)
        return;
    QByteArray line;
    line.reserve(message.size() + 1);
    line.append(message);
    line.append('\n');
    m_socket->write(line);
    if (m_socket->bytesToWrite() > unreadOutputLimit()) {
        // The peer stopped reading: let it go (its jobs end with it) rather than queue forever.
        qCWarning(lcMcp) << "dropping an agent that left" << m_socket->bytesToWrite()
                         << "bytes of output unread (limit" << unreadOutputLimit() << ")";
        m_closed = true;
        m_socket->abort();
        QTimer::singleShot(0, this, &LocalSocketTransport::emitClosedOnce);
    }
}

void LocalSocketTransport::flush()
{
    if (m_socket && m_socket->state() == QLocalSocket::ConnectedState)
        m_socket->flush();
}

void LocalSocketTransport::close()
{
    if (m_closed)
        return;
    m_closed = true;
    // disconnectFromServer() writes what is queued before it lets go of the connection.
    if (m_socket && m_socket->state() == QLocalSocket::ConnectedState)
        m_socket->disconnectFromServer();
    // Queued, so that a close() from inside a message handler finishes that handler first.
    QTimer::singleShot(0, this, &LocalSocketTransport::emitClosedOnce);
}

void LocalSocketTransport::readAvailable()
{
    if (m_closed || !m_socket)
        return;
    const QByteArray data = m_socket->readAll(); // not a named file: the socket, split into bounded lines
    if (data.isEmpty())
        return;
    for (const LineSplitter::Line &line : m_splitter.feed(data)) {
        if (m_closed)
            return;
        Q_EMIT messageReceived(line.bytes, line.overlong);
    }
}

void LocalSocketTransport::peerDisconnected()
{
    if (m_closed)
        return;
    readAvailable(); // what the peer wrote before it went
    for (const LineSplitter::Line &line : m_splitter.finish()) {
        if (m_closed)
            return;
        Q_EMIT messageReceived(line.bytes, line.overlong);
    }
    qCInfo(lcMcp) << "local socket peer disconnected";
    m_closed = true;
    QTimer::singleShot(0, this, &LocalSocketTransport::emitClosedOnce);
}

void LocalSocketTransport::emitClosedOnce()
{
    if (m_closedEmitted)
        return;
    m_closedEmitted = true;
    Q_EMIT closed();
}

} // namespace hotkernel
