// SPDX-License-Identifier: Apache-2.0
// MCP over this process's stdin and stdout. Constructing it takes stdout over: protocol writes go
// to a private duplicate of fd 1, and fd 1 itself is pointed at stderr, so a stray print from
// any library or child cannot corrupt the wire. Lives on the main thread; reading never blocks it.
#pragma once

#include "mcp/linesplitter.h"
#include "mcp/mcptransport.h"

#include <memory>

class QSocketNotifier;

namespace hotkernel {

class FdWriterWorker;

class StdioTransport : public McpTransport
{
    Q_OBJECT
public:
    explicit StdioTransport(QObject *parent = nullptr);
    ~StdioTransport() override;

    void send(const QByteArray &message) override;
    void close() override;

Q_SIGNALS:
    // The client left more than the limit (mcp/mcplimits.h) of our output unread: it stopped
    // reading. Reading stops too (closed() follows); what we still send is dropped.
    void outputOverflowed(qint64 unreadBytes, qint64 limit);

private:
    void readAvailable();
    void finishReading();

    int m_inFd = 0;
    QSocketNotifier *m_notifier = nullptr;
    LineSplitter m_splitter;
    std::unique_ptr<FdWriterWorker> m_writer;
    qint64 m_outputLimit = 0;
    bool m_closed = false;
    bool m_overflowed = false;
};

} // namespace hotkernel
