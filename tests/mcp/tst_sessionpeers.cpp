// SPDX-License-Identifier: Apache-2.0
// Issue 42: a verify asks the other sessions of this user which processes on the card are theirs,
// over their sockets, and asks them to end their idle spares. Two sessions in this process, each
// listening on its own directory's socket in a private runtime directory; one holds a real
// CPU-torch spare worker. Asking gets that spare's process group by the session's word, and
// release_spares ends it.
#include "../measure/workercall.h"
#include "mcp/sessionlistener.h"
#include "measure/sessionpeers.h"
#include "measure/workerpool.h"
#include "session/session.h"
#include "sessionoptions.h"
#include "testlimits.h"
#include "tools/builtintools.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {
// Plain pointers: the test's locals outlive the wait on done.
QCoro::Task<void> collect(QStringList sockets, QString method, std::vector<Json> *out, bool *done)
{
    *out = co_await SessionPeers::ask(sockets, method);
    *done = true;
}

bool groupAlive(long long group)
{
    return ::kill(pid_t(-group), 0) == 0;
}

bool listen(SessionListener &listener)
{
    QSignalSpy listening(&listener, &SessionListener::listening);
    listener.start();
    return QTest::qWaitFor([&] { return listening.size() == 1; }, kEventLimitMs);
}
} // namespace

class TestSessionPeers : public QObject
{
    Q_OBJECT

    QTemporaryDir m_runtime; // 0700: a private runtime directory, away from real sessions'
    QString m_python;

    std::vector<Json> ask(const QStringList &sockets, const char *method)
    {
        std::vector<Json> answers;
        bool done = false;
        const QString name = QString::fromLatin1(method);
        collect(sockets, name, &answers, &done);
        if (!QTest::qWaitFor([&] { return done; }, kEventLimitMs))
            qWarning("SessionPeers::ask did not finish");
        return answers;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_runtime.isValid());
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_runtime.path()));
        m_python = workerPython();
    }

    void noSessionsNoAnswers()
    {
        QVERIFY(SessionPeers::sockets().isEmpty());
        QVERIFY(ask({}, SessionPeers::WorkersMethod).empty());
        // A socket nobody serves is left out, not waited on.
        QVERIFY(ask({m_runtime.filePath(QStringLiteral("hotkernel-0123456789abcdef"))},
                    SessionPeers::WorkersMethod)
                    .empty());
    }

    void otherSessionReportsAndReleasesItsSpares()
    {
        if (!importsTorch(m_python))
            QSKIP("no Python with torch (HOTKERNEL_PYTHON) on this machine");
        QTemporaryDir dirA;
        QTemporaryDir dirB;
        Session a(builtinTools(), optionsFor(dirA.path()));
        Session b(builtinTools(), optionsFor(dirB.path()));
        SessionListener listenerA(a, QStringLiteral("hotkernel serve"));
        SessionListener listenerB(b, QStringLiteral("the workbench window"));
        QVERIFY(listen(listenerA));
        QVERIFY(listen(listenerB));
        QCOMPARE(SessionPeers::sockets().size(), 2);

        b.workers().setSpareCount(1);
        b.workers().refillSpares(SpareRecipe{m_python, {}});
        QTRY_VERIFY_WITH_TIMEOUT(b.workers().sparesReady() == 1 || b.workers().sparesAlive() == 0,
                                 kEventLimitMs);
        QVERIFY2(b.workers().sparesReady() == 1, "the spare worker ended before it was ready");
        const QList<long long> groups = b.workers().processGroups();
        QCOMPARE(groups.size(), 1);
        const long long spare = groups.constFirst();
        QVERIFY(groupAlive(spare));

        // Every session answers; B names its spare, A has none.
        const std::vector<Json> answers = ask(SessionPeers::sockets(), SessionPeers::WorkersMethod);
        QCOMPARE(answers.size(), size_t(2));
        const std::vector<GpuSharing::PeerProcess> peers = SessionPeers::processes(answers, -1);
        QCOMPARE(peers.size(), size_t(1));
        QCOMPARE(peers.front().group, spare);
        QCOMPARE(peers.front().role, QStringLiteral("spare"));
        QCOMPARE(peers.front().socket, listenerB.socketPath());
        QVERIFY2(peers.front().session.endsWith(QStringLiteral(" in ") + b.workDir().root()),
                 qPrintable(peers.front().session));
        QVERIFY(peers.front().session.startsWith(QStringLiteral("the workbench window (pid ")));
        QCOMPARE(peers.front().howToEnd, QStringLiteral("close that window"));
        // A verify inside a session leaves its own out: here both sessions are this process.
        QVERIFY(SessionPeers::processes(answers, QCoreApplication::applicationPid()).empty());

        // Released: the spare ends, B says which, and refills on its next call.
        const std::vector<Json> released = ask({listenerB.socketPath()}, SessionPeers::ReleaseSparesMethod);
        QCOMPARE(released.size(), size_t(1));
        QVERIFY2(released.front()["released"] == Json::array({spare}), released.front().dump().c_str());
        QCOMPARE(b.workers().sparesAlive(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(spare), kEventLimitMs);
        QVERIFY(
            SessionPeers::processes(ask(SessionPeers::sockets(), SessionPeers::WorkersMethod), -1).empty());
    }
};

QTEST_GUILESS_MAIN(TestSessionPeers)
#include "tst_sessionpeers.moc"
