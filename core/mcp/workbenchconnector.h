// SPDX-License-Identifier: Apache-2.0
// Finds the workbench that owns a working directory: connects to its SessionListener's socket,
// retrying until a deadline while a freshly started workbench comes up, and checks that the
// socket's owner is this user. Main thread; never waits (timers and socket signals only).
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

class QLocalSocket;

namespace hotkernel {

class WorkbenchConnector : public QObject
{
    Q_OBJECT
public:
    explicit WorkbenchConnector(QString socketName, QObject *parent = nullptr);

    // One attempt when patienceMs is 0; else retries until patienceMs have passed, giving up
    // early when watchPid (a workbench this process started) is no longer alive.
    void start(int patienceMs = 0, qint64 watchPid = 0);

Q_SIGNALS:
    // The socket is connected and now belongs to the receiver.
    void connected(QLocalSocket *socket);
    void failed(const QString &reason);

private:
    void attempt();
    // Ends the attempt on socket (unless it already settled) and retries or gives up.
    void abandon(QLocalSocket *socket, const QString &reason);
    void attemptFailed(const QString &reason);
    void succeed(QLocalSocket *socket);

    QString m_name;
    int m_patienceMs = 0;
    qint64 m_watchPid = 0;
    QElapsedTimer m_clock;
    QTimer m_retry;
    QPointer<QLocalSocket> m_socket;
};

} // namespace hotkernel
