// SPDX-License-Identifier: Apache-2.0
// Brings SIGTERM, SIGINT and SIGHUP into the event loop (a self-pipe that a QSocketNotifier reads),
// so that hotkernel can end its jobs the way a cancel does before it exits, instead of dying with
// its children still running (issue 18). At most one per process; main thread.
#pragma once

#include <QObject>

class QSocketNotifier;

namespace hotkernel {

class TerminationSignals : public QObject
{
    Q_OBJECT
public:
    explicit TerminationSignals(QObject *parent = nullptr);
    // Restores the default actions.
    ~TerminationSignals() override;

    // The first signal that arrived; 0 while none has.
    int first() const { return m_first; }
    static QString name(int signal); // "SIGTERM", ...

Q_SIGNALS:
    // Once per signal delivered, in order.
    void arrived(int signal);

private:
    void readPipe();

    QSocketNotifier *m_notifier = nullptr;
    int m_first = 0;
};

} // namespace hotkernel
