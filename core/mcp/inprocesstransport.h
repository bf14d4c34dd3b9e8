// SPDX-License-Identifier: Apache-2.0
// Two transports wired to each other inside one process: what one sends, the other receives on
// a later event-loop turn, as over a real pipe. For unit tests. Lives on one thread.
#pragma once

#include "mcp/mcptransport.h"

#include <QPointer>

#include <memory>
#include <utility>

namespace hotkernel {

class InProcessTransport : public McpTransport
{
    Q_OBJECT
public:
    static std::pair<std::unique_ptr<InProcessTransport>, std::unique_ptr<InProcessTransport>> createPair();

    void send(const QByteArray &message) override;
    // Closes both ends, as a process whose stdin reached end of file sees it.
    void close() override;

private:
    InProcessTransport() = default;
    void closeLocally();

    QPointer<InProcessTransport> m_peer;
    bool m_closeScheduled = false;
    bool m_closed = false;
};

} // namespace hotkernel
