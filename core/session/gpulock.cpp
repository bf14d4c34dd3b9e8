// SPDX-License-Identifier: Apache-2.0
#include "session/gpulock.h"

#include "base/job.h"

#include <QCoroSignal>

namespace hotkernel {

QCoro::Task<bool> GpuLock::acquire(Job *job)
{
    if (!m_held && m_waiters.empty()) {
        m_held = true;
        co_return true;
    }
    const quint64 ticket = m_nextTicket++;
    m_waiters.push_back(ticket);
    QPointer<GpuLock> self = this;
    const QPointer<Job> watched(job);
    while (true) {
        co_await qCoro(this, &GpuLock::handedOver);
        if (!self)
            co_return false;
        if (job && (!watched || watched->isCancelled())) {
            std::erase(m_waiters, ticket);
            // Pass the turn on if it was ours.
            if (!m_held && !m_waiters.empty())
                Q_EMIT handedOver();
            co_return false;
        }
        if (!m_held && !m_waiters.empty() && m_waiters.front() == ticket) {
            m_waiters.pop_front();
            m_held = true;
            co_return true;
        }
    }
}

void GpuLock::release()
{
    m_held = false;
    if (!m_waiters.empty())
        Q_EMIT handedOver();
}

} // namespace hotkernel
