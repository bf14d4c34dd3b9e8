// SPDX-License-Identifier: Apache-2.0
// SIGTERM, SIGINT and SIGHUP end hotkernel the way a cancel ends a job: every job of the session is
// cancelled, its processes are waited for (bounded), then the event loop exits and the process
// returns 128 + the signal. A second signal exits at once; the supervisors still end whatever is
// left when this process is gone (issue 18). Main thread.
#pragma once

#include "process/terminationsignals.h"

#include <QCoroTask>
#include <QObject>

#include <functional>

class QCoreApplication;

namespace hotkernel {

class Session;

class SignalShutdown : public QObject
{
    Q_OBJECT
public:
    // session: the session whose jobs to end, or null (an attached `hotkernel mcp` has none).
    SignalShutdown(QCoreApplication &app, std::function<Session *()> session, QObject *parent = nullptr);

    // Called with the signal before the jobs are cancelled (the window tells attached agents why).
    void setAnnouncer(std::function<void(int)> announce) { m_announce = std::move(announce); }
    // 128 + the signal once one arrived, else normal.
    int exitCode(int normal) const;

private:
    void arrived(int signal);
    QCoro::Task<void> endJobs(int signal);

    QCoreApplication &m_app;
    std::function<Session *()> m_session;
    std::function<void(int)> m_announce;
    TerminationSignals m_signals;
    bool m_ending = false;
};

} // namespace hotkernel
