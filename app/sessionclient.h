// SPDX-License-Identifier: Apache-2.0
// The CLI's end of a session that outlives it (issue 23): the window open on the directory, or
// `hotkernel serve`, which join() starts when neither runs. The CLI's tool calls go to that
// session over the directory's socket as MCP requests, so its warm workers and spares serve them
// and the window's feed shows them. Main thread; waits only by awaiting.
#pragma once

#include "base/json.h"
#include "base/toolresult.h"

#include <QCoroTask>
#include <QObject>
#include <QPointer>

#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace hotkernel {

class LocalSocketTransport;

class SessionClient : public QObject
{
    Q_OBJECT
public:
    struct Joined
    {
        std::unique_ptr<SessionClient> client; // null: run in this process, for whyNot
        QString whyNot;
    };
    // Joins the session serving dir, starting `hotkernel serve` there when none does and
    // startIfNone is set (with --host hostArgument when not empty). Refuses a session that would
    // measure differently from this process (SessionIdentity::mismatch): another binary, another
    // host than host (the call's, as Session::hostDisplay() writes it), another environment.
    static QCoro::Task<Joined> join(QString dir, QString host, QString hostArgument, bool startIfNone);

    ~SessionClient() override;
    // One tool call in the joined session. progress gets its progress messages. An error result
    // (never nullopt) when the session goes away before it answers.
    QCoro::Task<ToolResult> call(QString tool, Json arguments, std::function<void(const QString &)> progress);
    // "the workbench window (pid 42)" or "hotkernel serve (pid 42)": for messages.
    QString servedBy() const { return m_servedBy; }

Q_SIGNALS:
    void changed(); // a reply or notification arrived, or the connection closed

private:
    explicit SessionClient(LocalSocketTransport *transport, QString dir);
    void received(const QByteArray &line);
    // A tools/call reply as the ToolResult a call in this process would give; throws
    // Json::exception on a reply of the wrong shape.
    static ToolResult toolResult(const Json &reply);

    std::unique_ptr<LocalSocketTransport> m_transport;
    QString m_dir;
    QString m_servedBy;
    qint64 m_nextId = 1;
    std::map<qint64, Json> m_replies;
    std::map<qint64, std::function<void(const QString &)>> m_progress;
    bool m_closed = false;
    QString m_goneReason;
};

} // namespace hotkernel
