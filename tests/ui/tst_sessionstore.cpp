// SPDX-License-Identifier: Apache-2.0
// The saved session: runs, verify history and targets survive a reopen; a damaged file says so.
#include "faketools.h"
#include "session/sessionstore.h"
#include "tools/builtintools.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

class TestSessionStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void savesAndReloads()
    {
        QTemporaryDir dir;
        {
            Session session(builtinTools(), test::optionsFor(dir.path()));
            test::installFakeVerify(session);
            SessionStore store(session);
            QVERIFY(store.load()); // no file yet: an empty session
            QVERIFY(store.runs().isEmpty());
            Job *job = session.start(QStringLiteral("verify"), Json{{"n", 2}, {"pause_ms", 1}},
                                     QStringLiteral("window"));
            QTRY_VERIFY(job->state() != Job::State::Running);
            QTRY_COMPARE(store.runs().size(), 1);
            QCOMPARE(store.history().size(), 1u);
            QVERIFY(QFile::exists(store.path()));
        }
        Session session(builtinTools(), test::optionsFor(dir.path()));
        SessionStore store(session);
        QVERIFY(store.load());
        QCOMPARE(store.runs().size(), 1);
        const RunSummary run = store.runs().first();
        QCOMPARE(run.tool, QStringLiteral("verify"));
        QCOMPARE(run.client, QStringLiteral("window"));
        QCOMPARE(run.state, QStringLiteral("finished"));
        QVERIFY(run.reloaded);
        QVERIFY(run.arguments.contains(QLatin1String("n=2")));
        QCOMPARE(store.history().size(), 1u);
        QCOMPARE(store.history()[0]["verdict"].get<std::string>(), std::string("faster"));
    }

    void damagedFileIsReported()
    {
        QTemporaryDir dir;
        QDir(dir.path()).mkpath(QStringLiteral(".hotkernel"));
        QFile f(dir.filePath(QStringLiteral(".hotkernel/session.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{not json");
        f.close();
        Session session(builtinTools(), test::optionsFor(dir.path()));
        SessionStore store(session);
        QString error;
        QVERIFY(!store.load(&error));
        QVERIFY(error.contains(QLatin1String("session.json")));
    }

    void summaries()
    {
        QCOMPARE(SessionStore::summarizeArguments(Json{{"n", 7}, {"baseline", "a.py"}}),
                 QStringLiteral("n=7 baseline=a.py"));
        ToolResult r = ToolResult::success(Json::object(), QStringLiteral("first line\nsecond"));
        QCOMPARE(SessionStore::summarizeResult(r), QStringLiteral("first line"));
    }
};

QTEST_GUILESS_MAIN(TestSessionStore)
#include "tst_sessionstore.moc"
