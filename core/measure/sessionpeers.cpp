// SPDX-License-Identifier: Apache-2.0
#include "measure/sessionpeers.h"

#include "measure/sessionidentity.h"
#include "process/runtimedir.h"

#include <QDir>
#include <QLocalSocket>
#include <QPointer>
#include <QRegularExpression>
#include <QTimer>

#include <qcorosignal.h>

#include <memory>

namespace hotkernel {

QStringList SessionPeers::sockets()
{
    const QString runtime = RuntimeDir::path();
    if (runtime.isEmpty())
        return {};
    // Only the names SessionListener gives (a 16-digit hash): the GPU lock files live here too.
    static const QRegularExpression name(QStringLiteral("^hotkernel-[0-9a-f]{16}$"));
    QStringList found;
    const QDir dir(runtime);
    for (const QString &entry : dir.entryList(QDir::System | QDir::Files | QDir::NoDotAndDotDot)) {
        if (name.match(entry).hasMatch())
            found.append(dir.filePath(entry));
    }
    return found;
}

SessionPeers::SessionPeers(const QStringList &sockets, const QString &method, QObject *parent)
    : QObject(parent), m_request(QByteArray::fromStdString(
                                     Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", toStd(method)}}.dump()) +
                                 '\n'),
      m_pending(int(sockets.size()))
{
    if (sockets.isEmpty()) {
        QTimer::singleShot(0, this, &SessionPeers::finished);
        return;
    }
    for (const QString &path : sockets) {
        auto *socket = new QLocalSocket(this);
        socket->setProperty("path", path);
        auto buffer = std::make_shared<QByteArray>();
        connect(socket, &QLocalSocket::connected, this, [this, socket] { socket->write(m_request); });
        connect(socket, &QLocalSocket::readyRead, this, [this, socket, buffer] {
            buffer->append(socket->readAll()); // not a named file: a peer session's socket
            const qsizetype end = buffer->indexOf('\n');
            if (end < 0) {
                // A peer's answer is a few KB; one that never ends its line is not listened to.
                if (buffer->size() > MaxAnswerBytes)
                    settle(socket, Json());
                return;
            }
            const std::optional<Json> reply = parseJson(buffer->left(end));
            Json result;
            if (reply && reply->is_object())
                result = reply->value("result", Json());
            settle(socket, result);
        });
        connect(socket, &QLocalSocket::errorOccurred, this, [this, socket] { settle(socket, Json()); });
        auto *timeout = new QTimer(socket);
        timeout->setSingleShot(true);
        connect(timeout, &QTimer::timeout, this, [this, socket] { settle(socket, Json()); });
        timeout->start(AnswerTimeoutMs);
        socket->connectToServer(path);
    }
}

void SessionPeers::settle(QLocalSocket *socket, const Json &answer)
{
    if (socket->property("settled").toBool())
        return;
    socket->setProperty("settled", true);
    if (answer.is_object()) {
        m_answers.push_back(answer);
        m_answers.back()["socket"] = toStd(socket->property("path").toString());
    }
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
    if (--m_pending == 0)
        QTimer::singleShot(0, this, &SessionPeers::finished);
}

std::vector<GpuSharing::PeerProcess> SessionPeers::processes(const std::vector<Json> &answers,
                                                             long long ownPid)
{
    std::vector<GpuSharing::PeerProcess> found;
    for (const Json &answer : answers) {
        const Json identity = answer.value("identity", Json());
        if (identity.is_object() && identity.value("pid", Json()) == Json(ownPid))
            continue;
        const QString session =
            QStringLiteral("%1 in %2").arg(SessionIdentity::describe(identity), stringField(answer, "dir"));
        const Json workers = answer.value("workers", Json::array());
        if (!workers.is_array())
            continue;
        for (const Json &w : workers) {
            if (!w.is_object() || !w.contains("group") || !w["group"].is_number_integer())
                continue;
            found.push_back(GpuSharing::PeerProcess{w["group"].get<long long>(), stringField(w, "role"),
                                                    session, stringField(answer, "how_to_end"),
                                                    stringField(answer, "socket")});
        }
    }
    return found;
}

QCoro::Task<std::vector<Json>> SessionPeers::ask(QStringList sockets, QString method)
{
    // Owned by this frame: nothing else deletes it, so the wait below always ends.
    auto query = std::make_unique<SessionPeers>(sockets, method);
    if (!query->isFinished())
        co_await qCoro(query.get(), &SessionPeers::finished);
    co_return query->answers();
}

} // namespace hotkernel
