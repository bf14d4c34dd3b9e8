// SPDX-License-Identifier: Apache-2.0
// Asks the other live sessions of this user (`hotkernel serve`, windows) about their processes
// (issue 42): every session listens on a socket in the per-user runtime directory
// (SessionListener), and answers `hotkernel/workers` with its workers' and spares' process groups
// and `hotkernel/release_spares` by ending its spares (they refill after its next bench or
// verify). A verify asks before its timed runs, so a process on the card is known to be another
// session's by that session's word, never by its command line, which a candidate's child can
// choose. Lives on the calling thread; nothing here blocks.
// The asking side sits in measure/ beside GpuSharing, which verify feeds with it; the answering
// side is the MCP server's (mcp/), which uses the method names below.
#pragma once

#include "base/json.h"
#include "measure/gpusharing.h"

#include <QObject>
#include <QStringList>

#include <qcorotask.h>

#include <vector>

class QLocalSocket;

namespace hotkernel {

class SessionPeers : public QObject
{
    Q_OBJECT
public:
    static constexpr const char *WorkersMethod = "hotkernel/workers";
    static constexpr const char *ReleaseSparesMethod = "hotkernel/release_spares";
    // A live session answers a local socket at once; this only bounds a hung one.
    static constexpr int AnswerTimeoutMs = 2000;
    // A peer's answer lists a handful of processes; past this it is not a hotkernel session.
    static constexpr qsizetype MaxAnswerBytes = 1024 * 1024;

    // The session sockets in the runtime directory (SessionListener::socketName's names).
    static QStringList sockets();
    // Sends method to every socket and collects each answer's result (an object holding the
    // session's "identity", "dir", "how_to_end" and "workers"); sockets that do not answer in time,
    // or answer with an error, are left out. The awaiting frame owns nothing that can go away.
    // Each answer also holds "socket": where it came from.
    static QCoro::Task<std::vector<Json>> ask(QStringList sockets, QString method);
    // The process groups the answers report, leaving out the session served by ownPid (a verify
    // inside a session must not take its own workers for another's).
    static std::vector<GpuSharing::PeerProcess> processes(const std::vector<Json> &answers, long long ownPid);

    // The query itself, for ask(): finished() follows on a later event-loop turn.
    SessionPeers(const QStringList &sockets, const QString &method, QObject *parent = nullptr);
    bool isFinished() const { return m_pending == 0; }
    const std::vector<Json> &answers() const { return m_answers; }

Q_SIGNALS:
    void finished();

private:
    void settle(QLocalSocket *socket, const Json &answer);

    QByteArray m_request;
    std::vector<Json> m_answers;
    int m_pending = 0;
};

} // namespace hotkernel
