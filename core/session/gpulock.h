// SPDX-License-Identifier: Apache-2.0
// One GPU-timing job at a time. In this process: a FIFO of waiting jobs, handed the lock in turn.
// Across processes the measure layer adds a file lock per device on top (see devicelock.h).
// Lives on the Session's thread.
#pragma once

#include <QCoroTask>
#include <QObject>
#include <QPointer>

#include <deque>
#include <functional>

namespace hotkernel {

class Job;

class GpuLock : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Resolves when the caller holds the lock, or with false when the job was cancelled while waiting.
    QCoro::Task<bool> acquire(Job *job);
    void release();
    // Wakes waiters so that cancelled ones leave the queue at once.
    void poke() { Q_EMIT handedOver(); }
    bool isHeld() const { return m_held; }
    int waiting() const { return int(m_waiters.size()); }

Q_SIGNALS:
    void handedOver();

private:
    bool m_held = false;
    std::deque<quint64> m_waiters; // ticket numbers in arrival order
    quint64 m_nextTicket = 0;
};

// Holds the GpuLock for a scope.
class GpuLockGuard
{
public:
    explicit GpuLockGuard(GpuLock *lock) : m_lock(lock) {}
    ~GpuLockGuard()
    {
        if (m_lock)
            m_lock->release();
    }
    GpuLockGuard(const GpuLockGuard &) = delete;
    GpuLockGuard &operator=(const GpuLockGuard &) = delete;

private:
    QPointer<GpuLock> m_lock;
};

} // namespace hotkernel
