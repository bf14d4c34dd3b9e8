// SPDX-License-Identifier: Apache-2.0
#include "mcp/inprocesstransport.h"

#include <QTimer>

namespace hotkernel {

std::pair<std::unique_ptr<InProcessTransport>, std::unique_ptr<InProcessTransport>>
InProcessTransport::createPair()
{
    std::unique_ptr<InProcessTransport> a(new InProcessTransport);
    std::unique_ptr<InProcessTransport> b(new InProcessTransport);
    a->m_peer = b.get();
    b->m_peer = a.get();
    return {std::move(a), std::move(b)};
}

void InProcessTransport::send(const QByteArray &message)
{
    if (m_closed || !m_peer)
        return;
    QTimer::singleShot(0, m_peer.data(), [peer = m_peer, message] {
        if (peer && !peer->m_closed)
            Q_EMIT peer->messageReceived(message, false);
    });
}

void InProcessTransport::close()
{
    closeLocally();
    if (m_peer)
        m_peer->closeLocally();
}

void InProcessTransport::closeLocally()
{
    if (m_closeScheduled)
        return;
    m_closeScheduled = true;
    // After the messages already in flight, like end of file after the last line.
    QTimer::singleShot(0, this, [this] {
        m_closed = true;
        Q_EMIT closed();
    });
}

} // namespace hotkernel
