// SPDX-License-Identifier: Apache-2.0
// MCP over a connected QLocalSocket: the workbench's end of an attached `hotkernel mcp`, and that
// relay's end towards the workbench (issue 6). Same framing and line cap as StdioTransport.
// Lives on the thread of the socket it is given; writes are buffered by Qt and never block.
#pragma once

#include "mcp/linesplitter.h"
#include "mcp/mcptransport.h"

#include <QPointer>

class QLocalSocket;

namespace hotkernel {

class LocalSocketTransport : public McpTransport
{
    Q_OBJECT
public:
    // Takes ownership of socket, which must be connected already.
    explicit LocalSocketTransport(QLocalSocket *socket, QObject *parent = nullptr);
    ~LocalSocketTransport() override;

    void send(const QByteArray &message) override;
    // Disconnects after the bytes already queued are written; closed() follows once.
    void close() override;

    bool isClosed() const { return m_closed; }
    // Writes what is queued now, as far as the socket takes it without waiting: for a last word
    // before the transport is destroyed (a queued write would be dropped with it).
    void flush();

private:
    void readAvailable();
    void peerDisconnected();
    void emitClosedOnce();

    QPointer<QLocalSocket> m_socket;
    LineSplitter m_splitter;
    bool m_closed = false;
    bool m_closedEmitted = false;
};

} // namespace hotkernel
