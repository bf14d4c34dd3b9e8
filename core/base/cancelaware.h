// SPDX-License-Identifier: Apache-2.0
// A tool handler's awaits under its Job: `co_await watch(task)` resumes with the task's value, or
// ends the coroutine with JobCancelled when the job was cancelled or deleted (with its Session)
// meanwhile. The handler catches JobCancelled in one place and returns
// ToolResult::cancelledResult(), so helpers and phases of it cannot forget the check after an
// await (docs/hacking.md, "Lifetime"). Lives on the Session's thread.
#pragma once

#include "base/job.h"

#include <QCoroFuture>
#include <QCoroTask>
#include <QFuture>
#include <QPointer>

#include <coroutine>
#include <type_traits>
#include <utility>

namespace hotkernel {

// Thrown by CancelAware when the job stopped; caught where the handler started, never further up.
struct JobCancelled
{
};

class CancelAware;

// The awaiter `co_await watch(task)` uses: the task's own awaiter, then the job's check. A task
// that threw (a UserError) throws that, as a plain co_await would.
template <typename T> class [[nodiscard]] CancelAwareTask
{
public:
    CancelAwareTask(QCoro::Task<T> task, const CancelAware &watch) : m_task(std::move(task)), m_watch(watch)
    {}

    bool await_ready() const noexcept { return m_task.operator co_await().await_ready(); }
    void await_suspend(std::coroutine_handle<> awaiting) noexcept
    {
        m_task.operator co_await().await_suspend(awaiting);
    }
    T await_resume();

private:
    QCoro::Task<T> m_task;
    const CancelAware &m_watch;
};

class CancelAware
{
public:
    explicit CancelAware(Job &job) : m_job(&job) {}

    // The job was cancelled, or deleted together with its Session.
    bool stopped() const { return !m_job || m_job->isCancelled(); }
    // Ends the coroutine (JobCancelled) when stopped().
    void check() const
    {
        if (stopped())
            throw JobCancelled{};
    }
    // Also ends it when an awaited helper said it stopped (false: a wait given up, a run cancelled).
    void require(bool proceed) const
    {
        if (!proceed)
            throw JobCancelled{};
        check();
    }

    // For the helpers it awaits (a plain pointer parameter) and for QPointer<Job> parameters (a named
    // variable: docs/hacking.md, "Compiler rules"). Alive after every await through this object.
    Job *get() const { return m_job.data(); }
    const QPointer<Job> &pointer() const { return m_job; }
    Job *operator->() const { return m_job.data(); }

    // co_await watch(task): the task's result, or JobCancelled.
    template <typename T> CancelAwareTask<T> operator()(QCoro::Task<T> &&task) const
    {
        return CancelAwareTask<T>(std::move(task), *this);
    }
    // co_await watch(future): a QFuture (QtConcurrent::run) the same way.
    template <typename T> CancelAwareTask<T> operator()(const QFuture<T> &future) const
    {
        QFuture<T> named = future; // a coroutine's argument is a named variable (docs/hacking.md)
        return CancelAwareTask<T>(finished(named), *this);
    }

private:
    template <typename T> static QCoro::Task<T> finished(QFuture<T> future)
    {
        if constexpr (std::is_void_v<T>) {
            co_await future;
        } else {
            T value = co_await future;
            co_return value;
        }
    }

    QPointer<Job> m_job;
};

template <typename T> T CancelAwareTask<T>::await_resume()
{
    if constexpr (std::is_void_v<T>) {
        m_task.operator co_await().await_resume();
        m_watch.check();
    } else {
        T value = m_task.operator co_await().await_resume();
        m_watch.check();
        return value;
    }
}

} // namespace hotkernel
