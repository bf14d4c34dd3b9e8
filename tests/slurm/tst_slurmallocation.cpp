// SPDX-License-Identifier: Apache-2.0
// SlurmAllocation against a real one-node Slurm that the test starts (slurm-cluster.sh: Debian's
// munge and slurm-wlm, no systemd): an allocation comes up, commands run in it as steps and their
// output comes back, two steps run side by side, a scancel or a time limit mid-run ends with a
// message that names the job, the partition and the fix and leaves no process, a pending request
// can be cancelled, and release leaves nothing in the queue. Needs root; skips with the reason.
#include "../measure/measuretesthelpers.h"
#include "../process/markedprocesses.h"
#include "base/job.h"
#include "process/processrunner.h"
#include "process/supervisor.h"
#include "slurm/slurmallocation.h"
#include "slurmtestcluster.h"

#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <unistd.h>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {

constexpr int AllocateMs = 60000;
constexpr int EndMs = 60000;

QCoro::Task<bool> releaseTask(SlurmAllocation *allocation)
{
    co_await allocation->release();
    co_return true;
}

// A python3 command as a ProcessSpec, with the test's marker in its environment.
ProcessSpec python(const QString &code, const QByteArray &marker = {})
{
    ProcessSpec spec;
    spec.program = QStringLiteral("/usr/bin/python3");
    spec.arguments = {QStringLiteral("-c"), code};
    if (!marker.isEmpty())
        spec.extraEnvironment.insert(QString::fromLatin1(markerName(marker)),
                                     QString::fromLatin1(markerValue(marker)));
    spec.timeout = std::chrono::minutes(4);
    return spec;
}

// squeue's state for a job; empty once Slurm has forgotten it.
QString jobState(const QString &jobId)
{
    return slurm(QStringLiteral("squeue"),
                 {QStringLiteral("--noheader"), QStringLiteral("--states=all"),
                  QStringLiteral("--jobs=") + jobId, QStringLiteral("--format=%T")});
}

bool isActive(const QString &state)
{
    return !state.isEmpty() && SlurmJobStatus{QString(), state, {}, {}, {}}.isActive();
}

bool processAlive(long long pid)
{
    return pid > 0 && QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid));
}

} // namespace

class TestSlurmAllocation : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    bool m_started = false;

    // Takes an allocation and checks it runs.
    bool acquire(SlurmAllocation &allocation)
    {
        auto taken = capture(allocation.acquire());
        [&] { QTRY_VERIFY_WITH_TIMEOUT(taken->done, AllocateMs); }();
        if (!taken->done || !taken->error.isEmpty() || !taken->value.value_or(false)) {
            qWarning().noquote() << "acquire:" << taken->error;
            return false;
        }
        return allocation.state() == SlurmAllocation::State::Running && !allocation.jobId().isEmpty();
    }

    bool release(SlurmAllocation &allocation)
    {
        auto released = capture(releaseTask(&allocation));
        [&] { QTRY_VERIFY_WITH_TIMEOUT(released->done, 60000); }();
        return released->done && allocation.state() == SlurmAllocation::State::Released;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("needs root: the test starts its own munged, slurmctld and slurmd (CI runs as root)");
        for (const char *tool : {"salloc", "srun", "squeue", "scancel", "slurmctld", "slurmd", "munged"}) {
            if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty())
                QSKIP(qPrintable(QStringLiteral("%1 is not installed: apt-get install slurm-wlm munge "
                                                "(packaging/setup-deps.sh installs them)")
                                     .arg(QString::fromLatin1(tool))));
        }
        QVERIFY2(!Supervisor::helperPath().isEmpty(), "hotkernel-supervise was not built beside hotkernel");
        QVERIFY(m_dir.isValid());
        const SlurmClusterStart cluster = startSlurmCluster(m_dir.path());
        if (cluster.exitCode == 77)
            QSKIP(qPrintable(cluster.errors));
        m_started = true; // stop what started, even half
        QVERIFY2(cluster.exitCode == 0, qPrintable(cluster.errors));
        qputenv("SLURM_CONF", cluster.conf);
    }

    void cleanupTestCase()
    {
        if (!m_started)
            return;
        QVERIFY(stopSlurmCluster(m_dir.path()));
    }

    void allocationComesUpAndReleaseLeavesNoJob()
    {
        SlurmAllocation allocation(SlurmHost::parse(QStringLiteral("slurm://debug?time=10")));
        QSignalSpy progress(&allocation, &SlurmAllocation::progressChanged);
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
        ticker.start(5);
        QVERIFY(acquire(allocation));
        QVERIFY2(ticks > 0, "the event loop stood still while the allocation was taken");
        QCOMPARE(jobState(allocation.jobId()), QStringLiteral("RUNNING"));
        QVERIFY(allocation.cpus() >= 1);
        QVERIFY(!allocation.nodes().isEmpty());
        QVERIFY(!progress.isEmpty());
        QVERIFY2(progress.last().at(0).toString().contains(allocation.jobId()),
                 qPrintable(progress.last().at(0).toString()));
        const long long keeper = allocation.keeperProcessId();
        QVERIFY(processAlive(keeper));

        QVERIFY(release(allocation));
        QVERIFY2(!isActive(jobState(allocation.jobId())), qPrintable(jobState(allocation.jobId())));
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(keeper), 10000);
        // Relinquished through the keeper, not cancelled.
        QCOMPARE(jobState(allocation.jobId()), QStringLiteral("COMPLETED"));
    }

    void destroyedWithoutReleaseLeavesNoJob()
    {
        // A session torn down without release() (the window closed, an exception): the destructor
        // gives the allocation back without waiting.
        auto allocation =
            std::make_unique<SlurmAllocation>(SlurmHost::parse(QStringLiteral("slurm://debug?time=10")));
        QVERIFY(acquire(*allocation));
        const QString jobId = allocation->jobId();
        const long long keeper = allocation->keeperProcessId();
        allocation.reset();
        QTRY_VERIFY_WITH_TIMEOUT(!isActive(jobState(jobId)), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(keeper), 10000);
    }

    void killedHolderLeavesNoJob()
    {
        // hotkernel killed with SIGKILL while it holds an allocation: salloc's supervisor sees its
        // lifeline close, and the keeper its stdin; Slurm must end the job either way.
        QProcess holder;
        holder.start(QStringLiteral(SLURM_HOLDER), {QStringLiteral("slurm://debug?time=10")});
        QTRY_VERIFY_WITH_TIMEOUT(holder.canReadLine() || holder.state() == QProcess::NotRunning, AllocateMs);
        const QStringList fields = QString::fromUtf8(holder.readLine()).trimmed().split(QLatin1Char(' '));
        QVERIFY2(fields.size() == 2, holder.readAllStandardError().constData());
        const QString jobId = fields[0];
        const long long keeper = fields[1].toLongLong();
        QCOMPARE(jobState(jobId), QStringLiteral("RUNNING"));
        QVERIFY(processAlive(keeper));
        holder.kill();
        QVERIFY(holder.waitForFinished(10000));
        QTRY_VERIFY_WITH_TIMEOUT(!isActive(jobState(jobId)), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(keeper), 10000);
    }

    void wrappedCommandRunsInside()
    {
        SlurmAllocation allocation(SlurmHost::parse(QStringLiteral("slurm://debug?time=10")));
        QVERIFY(acquire(allocation));
        ProcessSpec spec =
            python(QStringLiteral("import os, sys\n"
                                  "print(os.environ['SLURM_JOB_ID'], os.environ['HOTKERNEL_SLURM_TEST'])\n"
                                  "print(open('/proc/%d/comm' % os.getppid()).read().strip())\n"
                                  "print(sys.stdin.read().upper(), end='')\n"
                                  "print('to stderr', file=sys.stderr)\n"
                                  "sys.exit(3)\n"));
        spec.extraEnvironment.insert(QStringLiteral("HOTKERNEL_SLURM_TEST"), QStringLiteral("exported"));
        spec.standardInput = "from stdin\n";
        const ProcessSpec wrapped = allocation.wrap(spec);
        QCOMPARE(wrapped.program, QStringLiteral("srun"));
        QVERIFY(wrapped.arguments.contains(QStringLiteral("--jobid=") + allocation.jobId()));
        QVERIFY(wrapped.arguments.contains(QStringLiteral("--overlap")));

        auto ran = capture(ProcessRunner::run(wrapped));
        QTRY_VERIFY_WITH_TIMEOUT(ran->done, 60000);
        const ProcessResult result = *ran->value;
        QCOMPARE(int(result.status), int(ProcessResult::Status::Finished));
        QCOMPARE(result.exitCode, 3); // the command's own status comes back through srun
        const QStringList lines = QString::fromUtf8(result.standardOutput).trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.value(0), allocation.jobId() + QStringLiteral(" exported"));
        QCOMPARE(lines.value(1), QStringLiteral("slurmstepd")); // a step of the job, not a local child
        QCOMPARE(lines.value(2), QStringLiteral("FROM STDIN"));
        QVERIFY2(result.standardError.contains("to stderr"), result.standardError.constData());

        // A command that failed on its own is not blamed on the allocation.
        auto ended = capture(allocation.checkEnded());
        QTRY_VERIFY_WITH_TIMEOUT(ended->done, 30000);
        QCOMPARE(ended->value.value_or(QStringLiteral("?")), QString());
        QVERIFY(release(allocation));
    }

    void twoStepsRunSideBySide()
    {
        // Both workers of a verify must run at once in the one allocation: each waits for the other.
        SlurmAllocation allocation(SlurmHost::parse(QStringLiteral("slurm://debug?time=10")));
        QVERIFY(acquire(allocation));
        QTemporaryDir meeting;
        const QString code =
            QStringLiteral("import os, sys, time\n"
                           "d, me, other = sys.argv[1], sys.argv[2], sys.argv[3]\n"
                           "open(os.path.join(d, me), 'w').close()\n"
                           "for _ in range(600):\n"
                           "    if os.path.exists(os.path.join(d, other)): print('met'); break\n"
                           "    time.sleep(0.05)\n"
                           "else: sys.exit('alone')\n");
        ProcessSpec baseline = python(code);
        baseline.arguments << meeting.path() << QStringLiteral("baseline") << QStringLiteral("candidate");
        ProcessSpec candidate = python(code);
        candidate.arguments << meeting.path() << QStringLiteral("candidate") << QStringLiteral("baseline");
        auto first = capture(ProcessRunner::run(allocation.wrap(baseline)));
        auto second = capture(ProcessRunner::run(allocation.wrap(candidate)));
        QTRY_VERIFY_WITH_TIMEOUT(first->done && second->done, 90000);
        QVERIFY2(first->value->succeeded(), first->value->standardError.constData());
        QVERIFY2(second->value->succeeded(), second->value->standardError.constData());
        QCOMPARE(first->value->standardOutput.trimmed(), QByteArray("met"));
        QCOMPARE(second->value->standardOutput.trimmed(), QByteArray("met"));
        QVERIFY(release(allocation));
    }

    void refusedRequestSaysWhy()
    {
        SlurmAllocation allocation(SlurmHost::parse(QStringLiteral("slurm://nosuchpartition")));
        auto taken = capture(allocation.acquire());
        QTRY_VERIFY_WITH_TIMEOUT(taken->done, AllocateMs);
        QVERIFY(!taken->value);
        QVERIFY2(taken->error.contains(QLatin1String("partition 'nosuchpartition'")),
                 qPrintable(taken->error));
        QVERIFY2(taken->error.contains(QLatin1String("sinfo")), qPrintable(taken->error));
        QCOMPARE(allocation.state(), SlurmAllocation::State::Failed);
    }

    void cancelWhilePending()
    {
        // Hold every CPU of the node, so that a second request has to wait in the queue.
        SlurmHost all = SlurmHost::parse(QStringLiteral("slurm://debug?time=10"));
        all.cpus = QThread::idealThreadCount();
        SlurmAllocation holder(all);
        QVERIFY(acquire(holder));

        SlurmAllocation waiting(SlurmHost::parse(QStringLiteral("slurm://debug?time=10")));
        waiting.setPollInterval(std::chrono::milliseconds(200));
        // Through a Job, as a tool call would: its progress shows the queue, its cancel withdraws.
        Job job(1, QStringLiteral("verify"), Json::object(), QStringLiteral("test"));
        auto taken = capture(waiting.acquire(&job));
        QTRY_VERIFY_WITH_TIMEOUT(job.progressMessage().contains(QLatin1String("waits in the queue")), 30000);
        QVERIFY2(job.progressMessage().contains(QLatin1String("(Resources)")),
                 qPrintable(job.progressMessage()));
        QCOMPARE(waiting.state(), SlurmAllocation::State::Pending);
        const QString jobId = waiting.jobId();
        QVERIFY(!jobId.isEmpty());
        QCOMPARE(jobState(jobId), QStringLiteral("PENDING"));
        const long long keeper = waiting.keeperProcessId();

        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(taken->done, 30000);
        QVERIFY2(taken->error.isEmpty(), qPrintable(taken->error));
        QCOMPARE(taken->value, std::optional<bool>(false));
        QTRY_VERIFY_WITH_TIMEOUT(!isActive(jobState(jobId)), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(keeper), 10000);
        QVERIFY(release(holder));
    }

    void scancelMidRun()
    {
        SlurmAllocation allocation(SlurmHost::parse(QStringLiteral("slurm://debug?time=10")));
        QVERIFY(acquire(allocation));
        QSignalSpy ended(&allocation, &SlurmAllocation::ended);
        const QByteArray marker = newMarker();
        auto ran = capture(ProcessRunner::run(allocation.wrap(
            python(QStringLiteral("import time\nprint('up', flush=True)\ntime.sleep(300)\n"), marker))));
        QTRY_VERIFY_WITH_TIMEOUT(anyMarkedProcess(marker, "python3"), 30000);
        const long long keeper = allocation.keeperProcessId();

        slurm(QStringLiteral("scancel"), {allocation.jobId()});
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, EndMs);
        const QString message = ended.first().at(0).toString();
        for (const QString &part :
             QStringList{QStringLiteral("job ") + allocation.jobId(), QStringLiteral("partition 'debug'"),
                         QStringLiteral("cancelled"), QStringLiteral("Run again")})
            QVERIFY2(message.contains(part), qPrintable(message));
        QCOMPARE(allocation.state(), SlurmAllocation::State::Ended);
        QCOMPARE(allocation.error(), message);

        QTRY_VERIFY_WITH_TIMEOUT(ran->done, EndMs);
        QVERIFY(!ran->value->succeeded());
        auto explained = capture(allocation.checkEnded());
        QTRY_VERIFY_WITH_TIMEOUT(explained->done, 10000);
        QCOMPARE(explained->value.value_or(QString()), message);
        // Nothing left: not the step's python on the node, not srun, not salloc's keeper.
        QTRY_VERIFY_WITH_TIMEOUT(markedProcesses(marker).isEmpty(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(keeper), 10000);
        QVERIFY(release(allocation));
        QVERIFY(!isActive(jobState(allocation.jobId())));
    }

    void preemptedMidRun()
    {
        // slurm-cluster.sh's 'urgent' partition preempts (cancels) jobs of 'preemptible'.
        const int allCpus = QThread::idealThreadCount();
        SlurmHost low = SlurmHost::parse(QStringLiteral("slurm://preemptible?time=10"));
        low.cpus = allCpus;
        SlurmAllocation allocation(low);
        QVERIFY(acquire(allocation));
        QSignalSpy ended(&allocation, &SlurmAllocation::ended);
        const QByteArray marker = newMarker();
        auto ran = capture(ProcessRunner::run(
            allocation.wrap(python(QStringLiteral("import time\ntime.sleep(300)\n"), marker))));
        QTRY_VERIFY_WITH_TIMEOUT(anyMarkedProcess(marker, "python3"), 30000);

        SlurmHost high = SlurmHost::parse(QStringLiteral("slurm://urgent?time=10"));
        high.cpus = allCpus;
        SlurmAllocation urgent(high);
        QVERIFY(acquire(urgent));
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, EndMs);
        const QString message = ended.first().at(0).toString();
        for (const QString &part : QStringList{QStringLiteral("job ") + allocation.jobId(),
                                               QStringLiteral("partition 'preemptible'"),
                                               QStringLiteral("preempted"), QStringLiteral("?qos=")})
            QVERIFY2(message.contains(part), qPrintable(message));
        QTRY_VERIFY_WITH_TIMEOUT(ran->done, EndMs);
        QVERIFY(!ran->value->succeeded());
        QTRY_VERIFY_WITH_TIMEOUT(markedProcesses(marker).isEmpty(), 30000);
        QVERIFY(release(urgent));
        QVERIFY(release(allocation));
    }

    void timeLimitExceeded()
    {
        // time=1 is Slurm's smallest limit, one minute; the cluster ends the job right at it.
        SlurmAllocation allocation(SlurmHost::parse(QStringLiteral("slurm://debug?time=1")));
        QVERIFY(acquire(allocation));
        QSignalSpy ended(&allocation, &SlurmAllocation::ended);
        const QByteArray marker = newMarker();
        auto ran = capture(ProcessRunner::run(
            allocation.wrap(python(QStringLiteral("import time\ntime.sleep(600)\n"), marker))));
        QTRY_VERIFY_WITH_TIMEOUT(anyMarkedProcess(marker, "python3"), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 150000);
        const QString message = ended.first().at(0).toString();
        for (const QString &part :
             QStringList{QStringLiteral("job ") + allocation.jobId(), QStringLiteral("partition 'debug'"),
                         QStringLiteral("time limit"), QStringLiteral("?time=")})
            QVERIFY2(message.contains(part), qPrintable(message));
        QTRY_VERIFY_WITH_TIMEOUT(ran->done, EndMs);
        QVERIFY(!ran->value->succeeded());
        QTRY_VERIFY_WITH_TIMEOUT(markedProcesses(marker).isEmpty(), 30000);
        QCOMPARE(jobState(allocation.jobId()), QStringLiteral("TIMEOUT"));
        QVERIFY(release(allocation));
    }
};

QTEST_GUILESS_MAIN(TestSlurmAllocation)
#include "tst_slurmallocation.moc"
