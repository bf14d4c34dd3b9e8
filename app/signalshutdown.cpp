// SPDX-License-Identifier: Apache-2.0
#include "signalshutdown.h"

#include "measure/workerpool.h"
#include "process/processgroup.h"
#include "session/session.h"

#include <QCoreApplication>
#include <QCoroTimer>
#include <QElapsedTimer>
#include <QPointer>

#include <cstdio>

namespace hotkernel {

namespace {
// Cancelled jobs end within the supervisors' grace period; this bounds a hung one.
constexpr auto Patience = std::chrono::seconds(20);
constexpr auto PollEvery = std::chrono::milliseconds(50);
} // namespace

SignalShutdown::SignalShutdown(QCoreApplication &app, std::function<Session *()> session, QObject *parent)
    : QObject(parent), m_app(app), m_session(std::move(session))
{
    connect(&m_signals, &TerminationSignals::arrived, this, &SignalShutdown::arrived);
}

int SignalShutdown::exitCode(int normal) const
{
    return m_signals.first() ? 128 + m_signals.first() : normal;
}

void SignalShutdown::arrived(int signal)
{
    if (m_ending) {
        std::fprintf(stderr, "hotkernel: %s again; exiting now\n",
                     qPrintable(TerminationSignals::name(signal)));
        m_app.exit(128 + m_signals.first());
        return;
    }
    m_ending = true;
    if (m_announce)
        m_announce(signal);
    endJobs(signal);
}

QCoro::Task<void> SignalShutdown::endJobs(int signal)
{
    QPointer<SignalShutdown> self = this;
    QPointer<Session> session = m_session ? m_session() : nullptr;
    if (session) {
        const int running = int(session->runningJobs().size());
        std::fprintf(stderr, "hotkernel: %s; ending %d running job(s) and their processes\n",
                     qPrintable(TerminationSignals::name(signal)), running);
        // Kept workers belong to no job: note their groups before the pool forgets them.
        QList<long long> groups = session->workers().processGroups();
        // From here on the session starts nothing: a call that arrives while the jobs end is
        // answered with this (issue 39), never run.
        session->beginShutdown(QStringLiteral("hotkernel is shutting down (") +
                               TerminationSignals::name(signal) +
                               QStringLiteral(" arrived) and takes no new calls: start it again and repeat "
                                              "the call."));
        QElapsedTimer clock;
        clock.start();
        while (self && session && !session->runningJobs().isEmpty() &&
               clock.elapsed() < Patience.count() * 1000)
            co_await QCoro::sleepFor(PollEvery);
        if (!self)
            co_return;
        if (session) {
            groups += session->workers().processGroups();
            session->workers().clear();
        }
        const auto anyAlive = [&groups] {
            for (long long g : groups) {
                if (processGroupAlive(g))
                    return true;
            }
            return false;
        };
        while (self && anyAlive() && clock.elapsed() < Patience.count() * 1000)
            co_await QCoro::sleepFor(PollEvery);
        if (!self)
            co_return;
    }
    m_app.exit(128 + m_signals.first());
}

} // namespace hotkernel
