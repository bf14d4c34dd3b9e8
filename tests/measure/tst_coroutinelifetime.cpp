// SPDX-License-Identifier: Apache-2.0
// Owners deleted while a coroutine of theirs awaits: a worker runner deleted mid-wait, a Session
// deleted (after cancelling) while a tool awaits a child process or a worker. Each coroutine must
// resume to a defined end without touching freed memory; the asan preset turns a use-after-free
// here into a failure (docs/hacking.md, "Coroutines"). And CancelAware, the await that ends a
// handler's coroutine on cancel, which every await of verify, bench and disasm goes through.
#include "base/cancelaware.h"
#include "measure/measuresetup.h"
#include "measure/workerscriptrunner.h"
#include "measuretesthelpers.h"
#include "process/processgroup.h"
#include "session/session.h"
#include "testlimits.h"
#include "tools/builtintools.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QProcess>
#include <QPromise>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;
using namespace hotkernel::test;

class TestCoroutineLifetime : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QTemporaryDir m_workerTmp{workerWritableTemplate()}; // what fake workers write (issue 41)
    QString m_pidFile;

    ScriptRunnerOptions options(const char *behaviour)
    {
        ScriptRunnerOptions o;
        o.python = QStringLiteral("/usr/bin/python3");
        o.script = QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure/fake_%1.py")
                       .arg(QLatin1String(behaviour));
        o.timeout = std::chrono::minutes(10); // never reached: the test ends the wait itself
        return o;
    }

    // The fake writes its pid (its process group) once it runs.
    long long waitForPid()
    {
        long long pid = 0;
        (void)QTest::qWaitFor([&] { return (pid = readPid(m_pidFile)) > 0; }, kEventLimitMs);
        return pid;
    }

    // How an observed handler ended: it ran to its end, and whether as cancelled.
    struct HandlerEnd
    {
        bool returned = false;
        bool cancelled = false;
    };

    // Awaits a built-in handler and records how it ended; touches neither the Session nor the job
    // afterwards. A free coroutine: its arguments live in its own frame, not in a closure that the
    // deleted Session's registry would take with it.
    static QCoro::Task<ToolResult> observe(ToolSpec::Handler handler, std::shared_ptr<HandlerEnd> end,
                                           Session &session, Json arguments, Job &job)
    {
        ToolResult result;
        try {
            result = co_await handler(session, std::move(arguments), job);
        } catch (...) {
            end->returned = true;
            throw;
        }
        end->returned = true;
        end->cancelled = result.cancelled;
        co_return result;
    }

    // A Session whose tool `observed` is the built-in tool named, wrapped by observe().
    static std::unique_ptr<Session> observedSession(const QString &workDir, const QString &tool,
                                                    std::shared_ptr<HandlerEnd> end)
    {
        SessionOptions o;
        o.workDir = workDir;
        auto session = std::make_unique<Session>(builtinTools(), o);
        ToolSpec spec = *session->tools().find(tool);
        spec.name = QStringLiteral("observed");
        spec.cliVerb = QStringLiteral("observed");
        const ToolSpec::Handler handler = spec.handler;
        spec.handler = [handler, end](Session &s, Json arguments, Job &job) {
            return observe(handler, end, s, std::move(arguments), job);
        };
        session->mutableTools().add(std::move(spec));
        return session;
    }

    // Ends session the way the window and the MCP server do (its destructor cancels every job,
    // then the jobs go with it), and waits for the handler to run to its end.
    static void endSession(std::unique_ptr<Session> session, const QPointer<Job> &job,
                           const std::shared_ptr<HandlerEnd> &end)
    {
        QVERIFY(job);
        QCOMPARE(job->state(), Job::State::Running);
        QVERIFY(!end->returned);
        session.reset();
        QVERIFY(!job);
        QTRY_VERIFY_WITH_TIMEOUT(end->returned, kEventLimitMs);
        QVERIFY(end->cancelled);
        QTest::qWait(0); // the Session's own coroutine resumes right after the handler returns
    }

    // A task that resumes when its future gets a value (the test sets it), then gives it back or,
    // with fail, throws a UserError.
    static QCoro::Task<int> valueOf(QFuture<int> future, bool fail)
    {
        const int value = co_await future;
        if (fail)
            throw UserError(QStringLiteral("the awaited helper failed"));
        co_return value;
    }

    // How an await through CancelAware ended: "value N", "cancelled" or "error: MESSAGE".
    static QCoro::Task<QString> awaitUnder(Job *job, QFuture<int> future, bool fail, bool asTask)
    {
        CancelAware watch(*job);
        QString ended;
        try {
            int value = 0;
            if (asTask)
                value = co_await watch(valueOf(future, fail));
            else
                value = co_await watch(future);
            ended = QStringLiteral("value %1").arg(value);
        } catch (const JobCancelled &) {
            ended = QStringLiteral("cancelled");
        } catch (const UserError &e) {
            ended = QStringLiteral("error: ") + e.message();
        }
        co_return ended;
    }

    // Starts awaitUnder on a promise's future, lets `meanwhile` act on the job while it waits, then
    // gives the future a value and returns how the await ended.
    template <typename Meanwhile> static QString awaitedEnd(bool fail, bool asTask, Meanwhile meanwhile)
    {
        QPointer<Job> job = new Job(1, QStringLiteral("test"), Json::object(), QStringLiteral("test"));
        QPromise<int> promise;
        promise.start();
        const QFuture<int> future = promise.future(); // a named argument (docs/hacking.md)
        Job *watched = job.data();
        auto r = capture(awaitUnder(watched, future, fail, asTask));
        QTest::qWait(0);
        if (r->done)
            return QStringLiteral("ended before the future had a value");
        meanwhile(job.data());
        promise.addResult(7);
        promise.finish();
        if (!QTest::qWaitFor([&] { return r->done; }, kEventLimitMs))
            return QStringLiteral("never resumed");
        delete job.data();
        return r->value ? *r->value : QStringLiteral("no value: ") + r->error;
    }

private Q_SLOTS:
    // The awaited value when nothing stopped the job, through a task and through a QFuture.
    void cancelAwareGivesTheValue()
    {
        QCOMPARE(awaitedEnd(false, true, [](Job *) {}), QStringLiteral("value 7"));
        QCOMPARE(awaitedEnd(false, false, [](Job *) {}), QStringLiteral("value 7"));
    }

    // Cancelled or deleted (with its Session) while the await was suspended: JobCancelled, and the
    // value is never used.
    void cancelAwareEndsOnCancel()
    {
        QCOMPARE(awaitedEnd(false, true, [](Job *job) { job->cancel(); }), QStringLiteral("cancelled"));
        QCOMPARE(awaitedEnd(false, false, [](Job *job) { job->cancel(); }), QStringLiteral("cancelled"));
        QCOMPARE(awaitedEnd(false, true, [](Job *job) { delete job; }), QStringLiteral("cancelled"));
    }

    // A helper's UserError goes on unchanged (the user must see it), also from a cancelled job, as a
    // plain co_await would let it.
    void cancelAwareKeepsTheHelpersError()
    {
        QCOMPARE(awaitedEnd(true, true, [](Job *) {}), QStringLiteral("error: the awaited helper failed"));
        QCOMPARE(awaitedEnd(true, true, [](Job *job) { job->cancel(); }),
                 QStringLiteral("error: the awaited helper failed"));
    }

    // require(): a helper's own "it stopped" answer ends the coroutine too.
    void cancelAwareRequire()
    {
        Job job(2, QStringLiteral("test"), Json::object(), QStringLiteral("test"));
        const CancelAware watch(job);
        watch.require(true);
        QVERIFY_THROWS_EXCEPTION(JobCancelled, watch.require(false));
        job.cancel();
        QVERIFY_THROWS_EXCEPTION(JobCancelled, watch.check());
    }

    // The handlers converted to CancelAware (issue 40): each await goes through it (a state's
    // `job`, or a handler's `watch`), and none checks isCancelled() itself, so none can forget the
    // check after an await. A helper whose caller checks says so on its line ("cancel: checked by").
    void awaitsAreCancelAware()
    {
        const QDir core(QStringLiteral(HOTKERNEL_SOURCE_DIR "/core"));
        QStringList files;
        for (const QString &name : QDir(core.filePath(QStringLiteral("measure")))
                                       .entryList({QStringLiteral("verify*.cpp")}, QDir::Files))
            files << QStringLiteral("measure/") + name;
        QVERIFY(files.size() >= 4);
        files << QStringLiteral("measure/benchrun.cpp") << QStringLiteral("measure/uncontractedrun.cpp");
        for (const char *tool : {"disasmtool", "topkernelstool", "rooflinetool", "gpuinfotool", "profiletool",
                                 "torchtracetool", "newtargettool", "watchedhandler"})
            files << QStringLiteral("tools/%1.cpp").arg(QLatin1String(tool));
        const QRegularExpression aware(QStringLiteral("co_await ((s|state|call)\\.job|watch)\\("));
        int awaits = 0;
        for (const QString &name : files) {
            QFile f(core.filePath(name));
            QVERIFY2(f.open(QIODevice::ReadOnly | QIODevice::Text), qPrintable(name));
            const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
            for (qsizetype i = 0; i < lines.size(); ++i) {
                const QString line = lines[i].trimmed();
                if (line.startsWith(QStringLiteral("//")))
                    continue;
                QVERIFY2(!line.contains(QStringLiteral("isCancelled()")),
                         qPrintable(QStringLiteral("%1:%2: a cancel check outside CancelAware: %3")
                                        .arg(name)
                                        .arg(i + 1)
                                        .arg(line)));
                if (!line.contains(QStringLiteral("co_await")))
                    continue;
                ++awaits;
                QVERIFY2(aware.match(line).hasMatch() || line.contains(QStringLiteral("cancel: checked by")),
                         qPrintable(QStringLiteral("%1:%2: an await not through CancelAware: %3")
                                        .arg(name)
                                        .arg(i + 1)
                                        .arg(line)));
            }
        }
        QVERIFY(awaits > 40);
    }

    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_pidFile = m_workerTmp.filePath(QStringLiteral("pid"));
        qputenv("HOTKERNEL_FAKE_PIDFILE", m_pidFile.toUtf8());
        qputenv("HOTKERNEL_LOCK_DIR", m_tmp.path().toUtf8());
        qputenv("HOTKERNEL_NVIDIA_SMI", "/nonexistent/nvidia-smi"); // no GPU probe process
        const QString shipped = MeasureSetup::shippedContractSha256();
        qputenv("HOTKERNEL_FAKE_CONTRACT_SHA256", shipped.toUtf8());
    }
    void init() { QFile::remove(m_pidFile); }

    // waitReady() awaits the worker's ready line; the runner is deleted meanwhile.
    void runnerDeletedWhileWaitingReady()
    {
        auto *runner = new WorkerScriptRunner(options("hangstart"));
        auto r = capture(runner->waitReady());
        const long long group = waitForPid();
        QVERIFY(group > 0);
        QVERIFY(!r->done);
        delete runner;
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY(!r->value);
        QVERIFY2(r->error.contains(QStringLiteral("discarded before it was ready")), qPrintable(r->error));
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
    }

    // run() awaits the answer to a request; the runner is deleted meanwhile.
    void runnerDeletedMidRun()
    {
        auto *runner = new WorkerScriptRunner(options("hang"));
        auto ready = capture(runner->waitReady());
        QTRY_VERIFY_WITH_TIMEOUT(ready->done, kEventLimitMs);
        QVERIFY2(ready->value && *ready->value, qPrintable(ready->error));
        const long long group = runner->processGroup();
        auto r = capture(runner->run(0));
        QTest::qWait(200);
        QVERIFY(!r->done);
        delete runner;
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kEventLimitMs);
        QVERIFY(!r->value);
        QVERIFY2(r->error.contains(QStringLiteral("discarded mid-run")), qPrintable(r->error));
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
    }

    // disasm awaits cuobjdump (a fake that never answers); the Session is cancelled and deleted.
    void sessionDeletedWhileToolAwaitsProcess()
    {
        const QString fakeTool = m_tmp.filePath(QStringLiteral("cuobjdump"));
        {
            QFile f(fakeTool);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("#!/bin/sh\necho $$ > \"$HOTKERNEL_FAKE_PIDFILE\"\nexec sleep 600\n");
        }
        QFile::setPermissions(fakeTool, QFile::permissions(fakeTool) | QFileDevice::ExeOwner);
        qputenv("HOTKERNEL_CUOBJDUMP", fakeTool.toUtf8());
        const QString binary = m_tmp.filePath(QStringLiteral("kernel.so"));
        {
            QFile f(binary);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("not really a library");
        }

        auto end = std::make_shared<HandlerEnd>();
        auto session = observedSession(m_tmp.path(), QStringLiteral("disasm"), end);
        QPointer<Job> job =
            session->start(QStringLiteral("observed"), Json{{"target", "kernel.so"}, {"tool", "cuobjdump"}},
                           QStringLiteral("test"));
        const long long group = waitForPid();
        QVERIFY(group > 0);
        endSession(std::move(session), job, end);
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
    }

    // bench awaits a worker's ready line; the Session (and its worker pool) is cancelled and deleted.
    void sessionDeletedWhileToolAwaitsWorker()
    {
        const QString python = QStringLiteral("/usr/bin/python3");
        if (QProcess::execute(python, {QStringLiteral("-c"), QStringLiteral("import torch")}) != 0)
            QSKIP("bench looks for a Python with torch first: /usr/bin/python3 has none "
                  "(packaging/setup-deps.sh installs python3-torch)");
        qputenv("HOTKERNEL_PYTHON", python.toUtf8());
        auto end = std::make_shared<HandlerEnd>();
        auto session = observedSession(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure"),
                                       QStringLiteral("bench"), end);
        QPointer<Job> job = session->start(QStringLiteral("observed"), Json{{"script", "fake_hangstart.py"}},
                                           QStringLiteral("test"));
        const long long group = waitForPid();
        QVERIFY(group > 0);
        // Past the interpreter check: the handler now awaits the worker's ready line.
        QTRY_VERIFY_WITH_TIMEOUT(job->progressMessage().contains(QStringLiteral("worker")), kEventLimitMs);
        endSession(std::move(session), job, end);
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
        qunsetenv("HOTKERNEL_PYTHON");
    }

    // verify awaits the baseline's ready line in its first phase; the Session is cancelled and
    // deleted. The phase ends through JobCancelled, the handler as cancelled, the workers with it.
    void sessionDeletedWhileVerifyAwaitsWorker()
    {
        const QString python = QStringLiteral("/usr/bin/python3");
        if (QProcess::execute(python, {QStringLiteral("-c"), QStringLiteral("import torch")}) != 0)
            QSKIP("verify looks for a Python with torch first: /usr/bin/python3 has none "
                  "(packaging/setup-deps.sh installs python3-torch)");
        qputenv("HOTKERNEL_PYTHON", python.toUtf8());
        auto end = std::make_shared<HandlerEnd>();
        auto session = observedSession(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure"),
                                       QStringLiteral("verify"), end);
        QPointer<Job> job = session->start(
            QStringLiteral("observed"), Json{{"baseline", "fake_hangstart.py"}, {"candidate", "fake_ok.py"}},
            QStringLiteral("test"));
        const long long group = waitForPid();
        QVERIFY(group > 0);
        // Past the interpreter check: the handler now awaits the baseline's ready line.
        QTRY_VERIFY_WITH_TIMEOUT(job->progressMessage().contains(QStringLiteral("workers")), kEventLimitMs);
        endSession(std::move(session), job, end);
        QTRY_VERIFY_WITH_TIMEOUT(!processGroupAlive(group), kEventLimitMs);
        qunsetenv("HOTKERNEL_PYTHON");
    }
};

QTEST_GUILESS_MAIN(TestCoroutineLifetime)
#include "tst_coroutinelifetime.moc"
