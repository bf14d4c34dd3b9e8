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
    // Takes ownership of fd (closed when the worker is done with it).
    explicit FdWriterWorker(int fd);
    // Lets queued blocks drain for up to a moment, then lets the thread go: a reader that never
    // reads again must not keep the process from exiting.
    ~FdWriterWorker();
    FdWriterWorker(const FdWriterWorker &) = delete;
    FdWriterWorker &operator=(const FdWriterWorker &) = delete;

    void enqueue(QByteArray block);
    // False once a write failed (the reader closed its end); later blocks are dropped.
    bool isHealthy() const;

private:
    struct State;
    std::shared_ptr<State> m_state;
};

} // namespace hotkernel
