// SPDX-License-Identifier: Apache-2.0
// Which sessions a CLI call may join (issue 23): only one that would measure what the call would
// alone. The end-to-end cases (a copied binary, another HOTKERNEL_PYTHON) are in
// test_cli_session.py; here every field of the identity, including the host and a session of
// an older hotkernel that says nothing.
#include "measure/sessionidentity.h"
#include "session/session.h"
#include "sessionoptions.h"
#include "tools/builtintools.h"

#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

class TestSessionIdentity : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        qputenv("HOTKERNEL_PYTHON", "/usr/bin/python3");
        qunsetenv("CUDA_VISIBLE_DEVICES");
        qunsetenv("PYTHONPATH");
    }

    void ownIdentityMatches()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        const Json identity = SessionIdentity::of(session.hostDisplay(), QStringLiteral("hotkernel serve"));
        QCOMPARE(toQt(identity["host"].get<std::string>()), QStringLiteral("local"));
        QCOMPARE(identity["pid"].get<qint64>(), QCoreApplication::applicationPid());
        QVERIFY(SessionIdentity::mismatch(identity, QStringLiteral("local")).isEmpty());
        QCOMPARE(SessionIdentity::describe(identity),
                 QStringLiteral("hotkernel serve (pid %1)").arg(QCoreApplication::applicationPid()));
    }

    void everyFieldDecides_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("callHost");
        QTest::addColumn<QString>("expected");
        QTest::newRow("another host") << "host"
                                      << "local"
                                      << "ssh://gpu-box/work"
                                      << "runs its workers on local";
        QTest::newRow("another interpreter")
            << "environment/HOTKERNEL_PYTHON"
            << "/opt/other/python"
            << "local"
            << "HOTKERNEL_PYTHON=/opt/other/python and this call has HOTKERNEL_PYTHON=/usr/bin/python3";
        QTest::newRow("another card")
            << "environment/CUDA_VISIBLE_DEVICES"
            << "1"
            << "local"
            << "CUDA_VISIBLE_DEVICES=1 and this call has CUDA_VISIBLE_DEVICES=(unset)";
        QTest::newRow("another PYTHONPATH") << "environment/PYTHONPATH"
                                            << "/tmp/shadow"
                                            << "local"
                                            << "PYTHONPATH=/tmp/shadow";
        QTest::newRow("another binary") << "executable"
                                        << "/old/hotkernel (deleted)"
                                        << "local"
                                        << "runs /old/hotkernel (deleted)";
    }

    void everyFieldDecides()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, callHost);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        Json identity = SessionIdentity::of(session.hostDisplay(), QStringLiteral("the workbench window"));
        if (field.startsWith(QLatin1String("environment/")))
            identity["environment"][toStd(field.mid(12))] = toStd(value);
        else
            identity[toStd(field)] = toStd(value);
        const QString why = SessionIdentity::mismatch(identity, callHost);
        QVERIFY2(why.contains(expected), qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("--no-session")), qPrintable(why)); // says what to do
        QVERIFY2(why.contains(QStringLiteral("the workbench window (pid ")), qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("close that window")), qPrintable(why));
    }

    void sayHowToEndAServer()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        Json identity = SessionIdentity::of(session.hostDisplay(), QStringLiteral("hotkernel serve"));
        identity["environment"]["HOTKERNEL_PYTHON"] = "/opt/other/python";
        const QString why = SessionIdentity::mismatch(identity, QStringLiteral("local"));
        QVERIFY2(why.contains(
                     QStringLiteral("end that session (kill %1)").arg(QCoreApplication::applicationPid())),
                 qPrintable(why));
    }

    void fieldsOfTheWrongTypeReadAsAbsent()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        Json identity = SessionIdentity::of(session.hostDisplay(), QStringLiteral("hotkernel serve"));
        identity["pid"] = "many";
        identity["executable"] = 42;
        identity["environment"]["HOTKERNEL_PYTHON"] = Json::array();
        QCOMPARE(SessionIdentity::describe(identity), QStringLiteral("hotkernel serve"));
        const QString why = SessionIdentity::mismatch(identity, QStringLiteral("local"));
        QVERIFY2(why.contains(QLatin1String("runs (unset)")), qPrintable(why));
    }

    void silentSessionIsRefused()
    {
        // A session of a hotkernel before identities (no _meta), or a reply that is not an object.
        for (const Json &identity : {Json(), Json::object(), Json{{"pid", 7}}, Json("x")}) {
            const QString why = SessionIdentity::mismatch(identity, QStringLiteral("local"));
            QVERIFY2(why.contains(QLatin1String("older than this one")), qPrintable(why));
        }
    }
};

QTEST_GUILESS_MAIN(TestSessionIdentity)
#include "tst_sessionidentity.moc"
