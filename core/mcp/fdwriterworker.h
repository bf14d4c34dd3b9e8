// SPDX-License-Identifier: Apache-2.0
// Writes byte blocks to one file descriptor, in the order they were queued, on a thread of its
// own: a peer that stops reading fills the pipe and blocks this thread, never the event loop.
// enqueue() may be called from any thread.
#pragma once

#include <QByteArray>

#include <memory>

namespace hotkernel {

class FdWriterWorker
{
public:
    // Takes ownership of fd (closed when the worker is done with it). maxQueuedBytes bounds what
    // may wait, unwritten, for a peer that does not read.
    explicit FdWriterWorker(int fd, qint64 maxQueuedBytes);
    // Lets queued blocks drain for up to a moment, then lets the thread go: a reader that never
    // reads again must not keep the process from exiting.
    ~FdWriterWorker();
    FdWriterWorker(const FdWriterWorker &) = delete;
    FdWriterWorker &operator=(const FdWriterWorker &) = delete;

    // False when the block would take the unwritten bytes over the limit: it and every later
    // block are dropped (the peer stopped reading; the caller should let it go).
    bool enqueue(QByteArray block);
    // Bytes queued or being written, not yet taken by the peer.
    qint64 queuedBytes() const;
    // False once a write failed (the reader closed its end); later blocks are dropped.
    bool isHealthy() const;

private:
    struct State;
    std::shared_ptr<State> m_state;
};

} // namespace hotkernel
