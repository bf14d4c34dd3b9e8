// SPDX-License-Identifier: Apache-2.0
#include "mcp/fdwriterworker.h"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <unistd.h>

namespace hotkernel {

struct FdWriterWorker::State
{
    int fd = -1;
    std::mutex mutex;
    std::condition_variable wake;    // the writer thread waits here for work
    std::condition_variable drained; // the destructor waits here for an empty queue
    std::deque<QByteArray> queue;
    qint64 queuedBytes = 0; // in the queue and in the block being written
    qint64 maxQueuedBytes = 0;
    bool overflowed = false;
    bool writing = false;
    bool stopping = false;
    bool healthy = true;

    bool writeAll(const QByteArray &block)
    {
        const char *data = block.constData();
        qsizetype left = block.size();
        while (left > 0) {
            const ssize_t n = ::write(fd, data, size_t(left));
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return false;
            }
            data += n;
            left -= n;
        }
        return true;
    }

    void run()
    {
        std::unique_lock lock(mutex);
        for (;;) {
            wake.wait(lock, [this] { return stopping || !queue.empty(); });
            if (queue.empty())
                break; // stopping and nothing left
            QByteArray block = std::move(queue.front());
            queue.pop_front();
            writing = true;
            lock.unlock();
            const bool ok = writeAll(block);
            lock.lock();
            writing = false;
            queuedBytes -= block.size();
            if (!ok) {
                healthy = false;
                queue.clear();
                queuedBytes = 0;
            }
            if (queue.empty())
                drained.notify_all();
        }
        ::close(fd);
        fd = -1;
        drained.notify_all();
    }
};

FdWriterWorker::FdWriterWorker(int fd, qint64 maxQueuedBytes) : m_state(std::make_shared<State>())
{
    m_state->fd = fd;
    m_state->maxQueuedBytes = maxQueuedBytes;
    // The thread keeps the state alive on its own, so the worker may go before the thread does.
    std::thread([state = m_state] { state->run(); }).detach();
}

FdWriterWorker::~FdWriterWorker()
{
    std::unique_lock lock(m_state->mutex);
    m_state->stopping = true;
    m_state->wake.notify_all();
    m_state->drained.wait_for(lock, std::chrono::seconds(2),
                              [this] { return m_state->queue.empty() && !m_state->writing; });
}

bool FdWriterWorker::enqueue(QByteArray block)
{
    std::lock_guard lock(m_state->mutex);
    if (m_state->overflowed)
        return false;
    if (!m_state->healthy || m_state->stopping)
        return true; // the peer is gone or we are: nothing to report
    // One block alone may be bigger than the limit (a large resource to a client that reads):
    // the limit is on what piles up behind it.
    if (m_state->queuedBytes > 0 && m_state->queuedBytes + block.size() > m_state->maxQueuedBytes) {
        m_state->overflowed = true;
        return false;
    }
    m_state->queuedBytes += block.size();
    m_state->queue.push_back(std::move(block));
    m_state->wake.notify_one();
    return true;
}

qint64 FdWriterWorker::queuedBytes() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->queuedBytes;
}

bool FdWriterWorker::isHealthy() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->healthy;
}

} // namespace hotkernel
