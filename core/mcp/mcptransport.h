// SPDX-License-Identifier: Apache-2.0
// How MCP messages travel: one JSON-RPC message per line in, one per line out. The server only
// sees this interface, so stdio, the in-process test pair and a local socket (the window's
// session, issue 6) are interchangeable. Lives on the thread of the server that uses it.
#pragma once

#include <QByteArray>
#include <QObject>

namespace hotkernel {

class McpTransport : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Queues one message (without its newline) for the peer. Never blocks the caller's thread.
    virtual void send(const QByteArray &message) = 0;
    // Stops reading; closed() follows once. Messages already queued are still delivered.
    virtual void close() = 0;

Q_SIGNALS:
    // One line from the peer, newline stripped. overlong: the line exceeded the transport's
    // limit and its bytes were dropped (message is empty); the server answers a parse error.
    void messageReceived(const QByteArray &message, bool overlong);
    // The peer went away (stdin reached end of file, the socket disconnected).
    void closed();
};

} // namespace hotkernel
