// SPDX-License-Identifier: Apache-2.0
// slurm:// hosts (issue 24): what parses into which salloc options, what is refused and how the
// message says so; what the user is told when Slurm ends an allocation.
#include "base/usererror.h"
#include "slurm/slurmhost.h"
#include "slurm/slurmjobstatus.h"

#include <QTest>

using namespace hotkernel;

namespace {
QStringList strings(std::initializer_list<const char *> items)
{
    QStringList out;
    for (const char *item : items)
        out << QString::fromUtf8(item);
    return out;
}
} // namespace

class TestSlurmHost : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("partition");
        QTest::addColumn<QStringList>("allocation");
        QTest::addColumn<bool>("perVerify");
        QTest::newRow("default partition") << "slurm://"
                                           << "" << strings({}) << false;
        QTest::newRow("partition") << "slurm://debug"
                                   << "debug" << strings({"--partition=debug"}) << false;
        QTest::newRow("case kept") << "SLURM://GPU-a100"
                                   << "GPU-a100" << strings({"--partition=GPU-a100"}) << false;
        QTest::newRow("all options")
            << "slurm://gpu?gres=gpu:a100:1&time=1-02:00&account=proj_1&qos=high&cpus=8&lifetime=verify"
            << "gpu"
            << strings({"--partition=gpu", "--gres=gpu:a100:1", "--time=1-02:00", "--account=proj_1",
                        "--qos=high", "--cpus-per-task=8"})
            << true;
        QTest::newRow("no partition, options") << "slurm://?time=1"
                                               << "" << strings({"--time=1"}) << false;
        QTest::newRow("percent-encoded") << "slurm://gpu?gres=gpu%3A1"
                                         << "gpu" << strings({"--partition=gpu", "--gres=gpu:1"}) << false;
        QTest::newRow("time HH:MM:SS") << "slurm://?time=02:30:00"
                                       << "" << strings({"--time=02:30:00"}) << false;
        QTest::newRow("lifetime session") << "slurm://?lifetime=session"
                                          << "" << strings({}) << false;
    }
    void parses()
    {
        QFETCH(QString, text);
        QFETCH(QString, partition);
        QFETCH(QStringList, allocation);
        QFETCH(bool, perVerify);
        const SlurmHost host = SlurmHost::parse(text);
        QCOMPARE(host.partition, partition);
        QCOMPARE(host.allocationArguments(), allocation);
        QCOMPARE(host.lifetime == SlurmHost::Lifetime::Verify, perVerify);
        // The canonical form reads back as the same host.
        QCOMPARE(SlurmHost::parse(host.toUrl()), host);
    }

    void refuses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("other scheme") << "ssh://gpu"
                                      << "must start with slurm://";
        QTest::newRow("no slashes") << "slurm:gpu"
                                    << "must start with slurm://";
        QTest::newRow("path") << "slurm://gpu/work"
                              << "has no path";
        QTest::newRow("bad partition") << "slurm://gp u"
                                       << "'gp u' is not a partition name";
        QTest::newRow("unknown key") << "slurm://gpu?tim=10"
                                     << "unknown option 'tim'";
        QTest::newRow("twice") << "slurm://gpu?time=1&time=2"
                               << "'time' is given twice";
        QTest::newRow("no value") << "slurm://gpu?gres"
                                  << "'gres' has no value";
        QTest::newRow("empty value") << "slurm://gpu?account="
                                     << "'account' has no value";
        QTest::newRow("bad time") << "slurm://gpu?time=1h"
                                  << "time '1h' is not a Slurm time limit";
        QTest::newRow("zero time") << "slurm://gpu?time=0"
                                   << "more than zero";
        QTest::newRow("bad gres") << "slurm://gpu?gres=gpu 1"
                                  << "gres 'gpu 1' is not NAME[:TYPE]:COUNT";
        QTest::newRow("bad account") << "slurm://gpu?account=a;rm"
                                     << "account 'a;rm' is not a name";
        QTest::newRow("bad cpus") << "slurm://gpu?cpus=0"
                                  << "cpus '0' is not a count";
        QTest::newRow("bad lifetime") << "slurm://gpu?lifetime=forever"
                                      << "lifetime 'forever' is neither";
    }
    void refuses()
    {
        QFETCH(QString, text);
        QFETCH(QString, says);
        try {
            SlurmHost::parse(text);
            QFAIL("parsed");
        } catch (const UserError &e) {
            QVERIFY2(e.message().contains(says), qPrintable(e.message()));
            // Every refusal names the text and shows a form that works.
            QVERIFY2(e.message().contains(text), qPrintable(e.message()));
            QVERIFY2(e.message().contains(QLatin1String("slurm://gpu?gres=gpu:1&time=120")),
                     qPrintable(e.message()));
        }
    }

    void readsSqueueLines()
    {
        const auto status = SlurmJobStatus::parseLine(QStringLiteral("42|PENDING|Resources|1:00|\n"));
        QVERIFY(status);
        QCOMPARE(status->jobId, QStringLiteral("42"));
        QVERIFY(status->isPending());
        QVERIFY(status->isActive());
        QCOMPARE(status->reason, QStringLiteral("Resources"));
        QVERIFY(
            !SlurmJobStatus::parseLine(QStringLiteral("slurm_load_jobs error: Invalid job id specified")));
        QVERIFY(!SlurmJobStatus::parseLine(QStringLiteral("42|TIMEOUT|TimeLimit|1:00|vm"))->isActive());
    }

    void describesEnds_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QStringList>("says");
        QTest::newRow("time limit") << "7|TIMEOUT|TimeLimit|1:00|vm"
                                    << strings({"job 7", "partition 'debug'", "time limit (1:00)", "?time="});
        QTest::newRow("scancel") << "7|CANCELLED|None|5:00|vm" << strings({"job 7", "cancelled", "scancel"});
        QTest::newRow("preempted") << "7|PREEMPTED|None|5:00|vm"
                                   << strings({"preempted", "qos", "scontrol show partition debug"});
        QTest::newRow("node failure") << "7|NODE_FAIL|None|5:00|gpu12" << strings({"node gpu12 failed"});
        QTest::newRow("other") << "7|FAILED|NonZeroExitCode|5:00|vm"
                               << strings({"ended (FAILED, reason NonZeroExitCode)", "scontrol show job 7"});
    }
    void describesEnds()
    {
        QFETCH(QString, line);
        QFETCH(QStringList, says);
        const QString message =
            SlurmJobStatus::parseLine(line)->describeEnd(SlurmHost::parse(QStringLiteral("slurm://debug")));
        for (const QString &part : says)
            QVERIFY2(message.contains(part), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestSlurmHost)
#include "tst_slurmhost.moc"
