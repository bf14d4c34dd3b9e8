// SPDX-License-Identifier: Apache-2.0
// Watches a Job across co_await in the helpers a tool handler awaits (runners, probes). The Job
// is a child of the Session: when the Session goes away mid-await, the job goes with it, and the
// helper must return without touching either. Lives on the Session's thread.
#pragma once

#include "base/job.h"

#include <QPointer>

namespace hotkernel {

class JobGuard
{
public:
    // job may be null (a CLI helper that runs without one): such a guard never stops.
    explicit JobGuard(Job *job) : m_job(job), m_watching(job != nullptr) {}

    // After a co_await: the job was cancelled, or deleted together with its Session.
    bool stopped() const { return m_watching && (!m_job || m_job->isCancelled()); }
    // The job was deleted (its Session is gone): nothing the job or the Session owns may be used.
    bool gone() const { return m_watching && !m_job; }
    // The job to hand to the next awaited helper; null when gone (check stopped() first).
    Job *job() const { return m_job.data(); }

private:
    QPointer<Job> m_job;
    bool m_watching;
};

} // namespace hotkernel
