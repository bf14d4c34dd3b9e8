// SPDX-License-Identifier: Apache-2.0
#include "mcp/stdiotransport.h"

#include "base/logging.h"
#include "mcp/fdwriterworker.h"
#include "mcp/mcplimits.h"

#include <QSocketNotifier>
#include <QTimer>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace hotkernel {

namespace {
// Big enough that a multi-megabyte request arrives in a few reads, small enough to keep each
// event-loop turn short.
constexpr qsizetype ReadChunk = 1024 * 1024;
} // namespace

StdioTransport::StdioTransport(QObject *parent) : McpTransport(parent)
{
    // A client that goes away must show up as a failed write, not kill us mid-cleanup.
    std::signal(SIGPIPE, SIG_IGN);
    std::fflush(stdout);
    // CLOEXEC: children must not inherit the protocol pipe, or a leftover grandchild would keep
    // the client's end open after we exit.
    const int protocolFd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (protocolFd < 0)
        qCCritical(lcMcp) << "cannot duplicate stdout:" << std::strerror(errno);
    if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        qCWarning(lcMcp) << "cannot point stdout at stderr:" << std::strerror(errno);
    m_outputLimit = unreadOutputLimit();
    m_writer = std::make_unique<FdWriterWorker>(protocolFd, m_outputLimit);

    m_notifier = new QSocketNotifier(qintptr(m_inFd), QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &StdioTransport::readAvailable);
}

StdioTransport::~StdioTransport() = default;

void StdioTransport::send(const QByteArray &message)
{
    QByteArray line;
    line.reserve(message.size() + 1);
    line.append(message);
    line.append('\n');
    const qint64 size = line.size();
    if (m_writer->enqueue(std::move(line)) || m_overflowed)
        return;
    m_overflowed = true;
    Q_EMIT outputOverflowed(m_writer->queuedBytes() + size, m_outputLimit);
    close();
}

void StdioTransport::close()
{
    if (m_closed)
        return;
    m_closed = true;
    m_notifier->setEnabled(false);
    // Queued, so that a close() from inside a message handler finishes that handler first.
    QTimer::singleShot(0, this, [this] { Q_EMIT closed(); });
}

void StdioTransport::readAvailable()
{
    if (m_closed)
        return;
    QByteArray buffer(ReadChunk, Qt::Uninitialized);
    // The notifier said readable, so this read returns at once with what the pipe holds.
    const ssize_t n = ::read(m_inFd, buffer.data(), size_t(buffer.size()));
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        if (n < 0)
            qCWarning(lcMcp) << "reading stdin failed:" << std::strerror(errno);
        finishReading();
        return;
    }
    buffer.truncate(n);
    for (const LineSplitter::Line &line : m_splitter.feed(buffer)) {
        if (m_closed)
            return;
        Q_EMIT messageReceived(line.bytes, line.overlong);
    }
}

void StdioTransport::finishReading()
{
    m_notifier->setEnabled(false);
    for (const LineSplitter::Line &line : m_splitter.finish())
        Q_EMIT messageReceived(line.bytes, line.overlong);
    qCInfo(lcMcp) << "stdin closed";
    close();
}

} // namespace hotkernel
