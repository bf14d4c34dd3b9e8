// SPDX-License-Identifier: Apache-2.0
// hotkernel-supervise under ProcessRunner (issue 18): output, exit status and start failures
// reach the caller unchanged, and nothing a child starts (a setsid grandchild included) outlives
// a timeout, a cancel, the child itself, or the end of the pipe to its parent.
#include "../measure/measuretesthelpers.h"
#include "base/job.h"
#include "markedprocesses.h"
#include "process/processrunner.h"
#include "process/supervisor.h"
#include "process/writeconfinement.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {
// A shell that leaves a grandchild in a session of its own, then does what rest says.
ProcessSpec escaping(const QByteArray &marker, const QString &rest)
{
    ProcessSpec spec;
    spec.program = QStringLiteral("sh");
    spec.arguments = {QStringLiteral("-c"), QStringLiteral("setsid sleep 1000 & ") + rest};
    spec.extraEnvironment.insert(QString::fromLatin1(markerName(marker)),
                                 QString::fromLatin1(markerValue(marker)));
    return spec;
}

// Generous: the machine running the tests may be loaded.
constexpr int SettleMs = 60000;
} // namespace

class TestSupervisor : public QObject
{
    Q_OBJECT

    ProcessResult run(const ProcessSpec &spec, Job *job = nullptr)
    {
        auto r = capture(ProcessRunner::run(spec, job));
        [&] { QTRY_VERIFY_WITH_TIMEOUT(r->done, 120000); }();
        return r->value.value_or(ProcessResult{});
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!Supervisor::helperPath().isEmpty(), "hotkernel-supervise was not built beside hotkernel");
    }

    void passesOutputAndExitCodeThrough()
    {
        ProcessSpec spec;
        spec.program = QStringLiteral("sh");
        spec.arguments = {QStringLiteral("-c"), QStringLiteral("cat; echo err >&2; exit 3")};
        spec.standardInput = "from stdin\n";
        const ProcessResult r = run(spec);
        QCOMPARE(int(r.status), int(ProcessResult::Status::Finished));
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.standardOutput, QByteArray("from stdin\n"));
        QCOMPARE(r.standardError, QByteArray("err\n"));
    }

    void runsUnderTheSupervisor()
    {
        ProcessSpec spec;
        spec.program = QStringLiteral("sh");
        spec.arguments = {QStringLiteral("-c"), QStringLiteral("cat /proc/$PPID/comm")};
        const ProcessResult r = run(spec);
        QVERIFY(r.succeeded());
        QCOMPARE(r.standardOutput.trimmed(), QByteArray("hotkernel-super"));
    }

    void aCrashStaysACrash()
    {
        ProcessSpec spec;
        spec.program = QStringLiteral("sh");
        spec.arguments = {QStringLiteral("-c"), QStringLiteral("kill -SEGV $$")};
        const ProcessResult r = run(spec);
        QCOMPARE(int(r.status), int(ProcessResult::Status::Crashed));
    }

    void aMissingProgramFailsToStart()
    {
        ProcessSpec spec;
        spec.program = QStringLiteral("/nonexistent/hotkernel-no-such-program");
        const ProcessResult r = run(spec);
        QCOMPARE(int(r.status), int(ProcessResult::Status::FailedToStart));
        QVERIFY2(r.errorString.contains(QStringLiteral("No such file")), qPrintable(r.errorString));
        QVERIFY(!r.standardError.contains("hotkernel-supervise"));
    }

    void timeoutEndsAnEscapedGrandchild()
    {
        const QByteArray marker = newMarker();
        ProcessSpec spec = escaping(marker, QStringLiteral("sleep 1000"));
        spec.timeout = std::chrono::seconds(3);
        const ProcessResult r = run(spec);
        QCOMPARE(int(r.status), int(ProcessResult::Status::TimedOut));
        QTRY_VERIFY2_WITH_TIMEOUT(markedProcesses(marker).isEmpty(),
                                  qPrintable(describe(markedProcesses(marker))), SettleMs);
    }

    void cancelEndsAnEscapedGrandchild()
    {
        const QByteArray marker = newMarker();
        Job job(1, QStringLiteral("test"), Json::object(), QStringLiteral("test"));
        auto r = capture(ProcessRunner::run(escaping(marker, QStringLiteral("sleep 1000")), &job));
        QTRY_VERIFY_WITH_TIMEOUT(markedProcesses(marker).size() >= 3, SettleMs); // supervisor, sh, sleep
        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(r->done, SettleMs);
        QCOMPARE(int(r->value->status), int(ProcessResult::Status::Cancelled));
        QTRY_VERIFY2_WITH_TIMEOUT(markedProcesses(marker).isEmpty(),
                                  qPrintable(describe(markedProcesses(marker))), SettleMs);
    }

    void whatAChildLeavesEndsWithIt()
    {
        const QByteArray marker = newMarker();
        const ProcessResult r = run(escaping(marker, QStringLiteral("echo started")));
        QVERIFY(r.succeeded());
        QCOMPARE(r.standardOutput, QByteArray("started\n"));
        QTRY_VERIFY2_WITH_TIMEOUT(markedProcesses(marker).isEmpty(),
                                  qPrintable(describe(markedProcesses(marker))), SettleMs);
    }

    // What kill -9 of hotkernel amounts to for a supervisor: the pipe's write end closes.
    void theEndOfTheLifelineEndsTheTree()
    {
        const QByteArray marker = newMarker();
        int lifeline[2];
        QCOMPARE(::pipe2(lifeline, O_CLOEXEC), 0);
        QProcess supervisor;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QString::fromLatin1(markerName(marker)), QString::fromLatin1(markerValue(marker)));
        supervisor.setProcessEnvironment(env);
        const int readEnd = lifeline[0];
        supervisor.setChildProcessModifier([readEnd] {
            ::setpgid(0, 0);
            ::fcntl(readEnd, F_SETFD, 0);
        });
        supervisor.start(Supervisor::helperPath(),
                         {QStringLiteral("--lifeline=%1").arg(readEnd), QStringLiteral("--"),
                          QStringLiteral("sh"), QStringLiteral("-c"),
                          QStringLiteral("setsid sh -c 'sleep 1000' & sleep 1000")});
        QVERIFY(supervisor.waitForStarted(30000));
        ::close(lifeline[0]);
        QTRY_VERIFY_WITH_TIMEOUT(markedProcesses(marker).size() >= 4, SettleMs);
        ::close(lifeline[1]);
        QTRY_VERIFY_WITH_TIMEOUT(supervisor.state() == QProcess::NotRunning, SettleMs);
        QTRY_VERIFY2_WITH_TIMEOUT(markedProcesses(marker).isEmpty(),
                                  qPrintable(describe(markedProcesses(marker))), SettleMs);
    }

    // Issue 41: a confined child writes beneath its directory, to /dev and its own thread names in
    // /proc (not another process's memory), nowhere else, and the
    // supervisor's report (written before the child runs) says so.
    void aConfinedChildWritesOnlyWhereItMay()
    {
        QTemporaryDir inside, outside;
        QVERIFY(inside.isValid() && outside.isValid());
        WriteConfinement confinement({inside.path()});
        QProcess process;
        process.setProgram(QStringLiteral("sh"));
        process.setArguments({QStringLiteral("-c"),
                              QStringLiteral("echo in > \"$1/made\" && echo inside-ok; "
                                             "echo out > \"$2/made\" 2>/dev/null || echo outside-refused; "
                                             "echo more >> \"$2/old\" 2>/dev/null || echo append-refused; "
                                             "mkdir \"$2/dir\" 2>/dev/null || echo mkdir-refused; "
                                             "ln -s x \"$2/link\" 2>/dev/null || echo link-refused; "
                                             "echo null > /dev/null && echo devnull-ok; "
                                             // CUDA's cuInit names its threads here (error 304 without).
                                             "printf sh > /proc/$$/task/$$/comm && echo comm-ok; "
                                             "( exec 3>\"/proc/$3/mem\" ) 2>/dev/null && echo mem-opened || "
                                             "echo mem-refused"),
                              QStringLiteral("sh"), inside.path(), outside.path(),
                              QString::number(QCoreApplication::applicationPid())});
        QFile old(outside.filePath(QStringLiteral("old")));
        QVERIFY(old.open(QIODevice::WriteOnly)); // made before the child, by this process
        old.close();
        Supervisor::wrap(process, &confinement);
        process.start();
        confinement.started();
        QVERIFY(process.waitForFinished(SettleMs));
        const QString report = confinement.result();
        if (report.startsWith(QLatin1String("none: this kernel has no Landlock")))
            QSKIP(qPrintable(report));
        QVERIFY2(WriteConfinement::confined(report), qPrintable(report));
        const QByteArray out = process.readAllStandardOutput();
        QCOMPARE(out, QByteArray("inside-ok\noutside-refused\nappend-refused\nmkdir-refused\nlink-refused\n"
                                 "devnull-ok\ncomm-ok\nmem-refused\n"));
        QVERIFY(QFile::exists(inside.filePath(QStringLiteral("made"))));
        QVERIFY(!QFile::exists(outside.filePath(QStringLiteral("made"))));
        QCOMPARE(QFileInfo(old.fileName()).size(), 0);
    }

    // The report cannot be forged by the child: it is written and closed before the exec, and a
    // descriptor the child does not have cannot be written.
    void theChildCannotWriteTheReport()
    {
        QTemporaryDir inside;
        WriteConfinement confinement({inside.path()});
        QProcess process;
        process.setProgram(QStringLiteral("sh"));
        process.setArguments(
            {QStringLiteral("-c"), QStringLiteral("echo 'landlock ABI 99' >&%1 2>/dev/null; ls /proc/self/fd")
                                       .arg(confinement.reportWriteEnd())});
        Supervisor::wrap(process, &confinement);
        process.start();
        confinement.started();
        QVERIFY(process.waitForFinished(SettleMs));
        QVERIFY(!confinement.result().contains(QLatin1String("99")));
    }

    void aMissingDirectoryLeavesTheChildUnconfinedAndSaysSo()
    {
        WriteConfinement confinement({QStringLiteral("/nonexistent/hotkernel-scratch")});
        QProcess process;
        process.setProgram(QStringLiteral("true"));
        Supervisor::wrap(process, &confinement);
        process.start();
        confinement.started();
        QVERIFY(process.waitForFinished(SettleMs));
        QVERIFY2(confinement.result().startsWith(QLatin1String("none: ")), qPrintable(confinement.result()));
    }
};

QTEST_GUILESS_MAIN(TestSupervisor)
#include "tst_supervisor.moc"
