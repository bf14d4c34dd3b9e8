// SPDX-License-Identifier: Apache-2.0
// Another process on the GPU while we time (issue 18): read from real nvidia-smi
// --query-compute-apps output captured on the GPU machine (tests/data/inspect/nvidia-smi-*.csv,
// commands in nvidia-smi-commands.txt), our own processes left out, unknown pids not blamed.
#include "../inspect/fixtures.h"
#include "inspect/nvidiasmiparser.h"
#include "measure/gpusharing.h"

#include <QTest>

#include <unistd.h>

using namespace hotkernel;

namespace {
Json probeWith(const QByteArray &csv)
{
    Json busy = Json::array();
    for (Json &app : NvidiaSmiParser::parseApps(csv))
        busy.push_back(std::move(app));
    return Json{{"available", true}, {"busy_processes", busy}};
}
} // namespace

class TestGpuSharing : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void othersFromRealOutput_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("noheader") << QStringLiteral("nvidia-smi-apps.csv");
    }

    // Captured with nothing running: the header alone, nobody else on the card.
    void nobodyFromRealOutput()
    {
        const Json gpu = probeWith(readInspectFixture(QStringLiteral("nvidia-smi-compute-apps.csv")));
        QVERIFY(GpuSharing::others(
                    gpu, [](long long) { return false; }, [](long long) { return true; })
                    .empty());
    }

    void othersFromRealOutput()
    {
        QFETCH(QString, fixture);
        const Json gpu = probeWith(readInspectFixture(fixture));
        const auto visible = [](long long) { return true; };
        // Someone else's: reported with its name and memory.
        const auto others = GpuSharing::others(
            gpu, [](long long) { return false; }, visible);
        QCOMPARE(others.size(), size_t(1));
        QCOMPARE(others.front().pid, 770);
        QCOMPARE(others.front().name, QStringLiteral("python3"));
        QCOMPARE(others.front().memoryMib, 1202.0);
        QCOMPARE(GpuSharing::describe(others), QStringLiteral("pid 770 python3 (1202 MiB)"));
        // Our own worker: not another process.
        QVERIFY(GpuSharing::others(
                    gpu, [](long long pid) { return pid == 770; }, visible)
                    .empty());
        // A pid from another PID namespace cannot be told from ours: not blamed.
        QVERIFY(GpuSharing::others(
                    gpu, [](long long) { return false; }, [](long long) { return false; })
                    .empty());
    }

    void ownProcessesAreThisTree()
    {
        QVERIFY(GpuSharing::isOwnProcess(::getpid()));
        QVERIFY(!GpuSharing::isOwnProcess(1));
        QVERIFY(!GpuSharing::isOwnProcess(::getppid()));
        QVERIFY(GpuSharing::isVisibleProcess(::getpid()));
    }

    void mergeKeepsEachPidOnce()
    {
        std::vector<GpuSharing::Other> a{{1, QStringLiteral("a"), 1}};
        GpuSharing::merge(a, {{1, QStringLiteral("a"), 1}, {2, QStringLiteral("b"), -1}});
        QCOMPARE(a.size(), size_t(2));
        QCOMPARE(GpuSharing::describe(a), QStringLiteral("pid 1 a (1 MiB), pid 2 b"));
    }

    // Issue 42: another session's idle spare workers hold a context (memory) but compute nothing
    // during the timed runs; NVML's per-process samples (GpuProbe::processUtilization) say so, and
    // only processes that computed count against the verdict.
    void idleContextsAreNotComputing()
    {
        const Json gpu = probeWith(readInspectFixture(QStringLiteral("nvidia-smi-apps.csv")));
        std::vector<GpuSharing::Other> others = GpuSharing::others(
            gpu, [](long long) { return false; }, [](long long) { return true; });
        QCOMPARE(others.size(), size_t(1));
        // Samples for other processes only (our own workers computed): pid 770 ran nothing.
        const Json utilization{{"known", true},
                               {"processes", Json::array({Json{{"pid", 4242}, {"sm_percent_max", 99}}})}};
        GpuSharing::addActivity(others, utilization);
        std::vector<GpuSharing::Other> idle;
        QVERIFY(GpuSharing::computing(others, &idle).empty());
        QCOMPARE(idle.size(), size_t(1));
        QCOMPARE(GpuSharing::describe(idle), QStringLiteral("pid 770 python3 (1202 MiB, idle)"));
    }

    void computingContextsCount()
    {
        std::vector<GpuSharing::Other> others{{770, QStringLiteral("python3"), 1202},
                                              {81, QStringLiteral("b"), -1}};
        // 770 kept the SMs busy; 81 only moved memory (a copy engine): both computed.
        GpuSharing::addActivity(
            others, Json{{"known", true},
                         {"processes",
                          Json::array({Json{{"pid", 770}, {"sm_percent_max", 37}, {"samples", 4}},
                                       Json{{"pid", 81}, {"sm_percent_max", 0}, {"mem_percent_max", 12}}})}});
        std::vector<GpuSharing::Other> idle;
        const auto busy = GpuSharing::computing(others, &idle);
        QCOMPARE(busy.size(), size_t(2));
        QVERIFY(idle.empty());
        QCOMPARE(GpuSharing::describe(busy),
                 QStringLiteral("pid 770 python3 (1202 MiB, busy up to 37%), pid 81 b "
                                "(busy up to 12%)"));
    }

    // Without NVML's samples (nvidia-smi alone, or a driver without the query) nothing tells an
    // idle context from a computing one: presence counts, as before.
    void unknownActivityCountsAsComputing()
    {
        std::vector<GpuSharing::Other> others{{770, QStringLiteral("python3"), 1202}};
        GpuSharing::addActivity(others, Json{{"known", false}, {"reason", "NVML could not be loaded"}});
        QCOMPARE(others.front().busyPercentMax, -1.0);
        std::vector<GpuSharing::Other> idle;
        QCOMPARE(GpuSharing::computing(others, &idle).size(), size_t(1));
        QVERIFY(idle.empty());
        QCOMPARE(GpuSharing::describe(others), QStringLiteral("pid 770 python3 (1202 MiB)"));
    }

    // Issue 42: a process is another session's when that session reported its process group
    // (SessionPeers), whatever it calls itself; the verdict then names the session and how to end
    // it, and its spares are the ones to ask for the card.
    void otherSessionsProcessesAreNamedByTheirSession()
    {
        std::vector<GpuSharing::Other> others{{770, QStringLiteral("python3"), 3100},
                                              {771, QStringLiteral("python3"), 900},
                                              {990, QStringLiteral("hotkernel-spare"), 500}};
        // 770 leads a spare's group, 771 is a child in a worker's group; 990 only names itself
        // like a spare and is nobody's.
        const auto groupOf = [](long long pid) -> long long { return pid == 771 ? 700 : pid; };
        const std::vector<GpuSharing::PeerProcess> peers{
            {770, QStringLiteral("spare"), QStringLiteral("hotkernel serve (pid 4242) in /p"),
             QStringLiteral("end that session (kill 4242)"), QStringLiteral("/run/s1")},
            {700, QStringLiteral("candidate"), QStringLiteral("the workbench window (pid 17) in /q"),
             QStringLiteral("close that window"), QStringLiteral("/run/s2")}};
        GpuSharing::attribute(others, peers, groupOf);
        QCOMPARE(others[0].role, QStringLiteral("spare"));
        QCOMPARE(others[1].session, QStringLiteral("the workbench window (pid 17) in /q"));
        QVERIFY(others[2].session.isEmpty());
        QCOMPARE(GpuSharing::socketsWithSpares(others), QStringList{QStringLiteral("/run/s1")});
        QVERIFY(!GpuSharing::allOfSessions(others));
        QCOMPARE(
            GpuSharing::describe({others[0]}),
            QStringLiteral("pid 770 python3 (3100 MiB, spare worker of hotkernel serve (pid 4242) in /p)"));
        const std::vector<GpuSharing::Other> ofSessions{others[0], others[1]};
        QVERIFY(GpuSharing::allOfSessions(ofSessions));
        QCOMPARE(
            GpuSharing::howToFree(ofSessions),
            QStringLiteral("hotkernel serve (pid 4242) in /p: end that session (kill 4242); the workbench "
                           "window (pid 17) in /q: close that window"));
        QVERIFY(GpuSharing::howToFree({others[2]}).isEmpty());
        QVERIFY(!GpuSharing::allOfSessions({}));

        // The spare's session confirmed ending group 770; a second spare it did not confirm.
        std::vector<GpuSharing::Other> spares{others[0], others[0]};
        spares[1].pid = 772;
        spares[1].group = 772;
        const std::vector<Json> answers{Json{{"socket", "/run/s1"}, {"released", Json::array({770})}},
                                        Json{{"socket", "/run/s2"}, {"released", Json::array({772})}}};
        QCOMPARE(
            GpuSharing::releasedSpares(spares, answers),
            QStringLiteral("idle spare workers of other hotkernel sessions held this GPU (pid 770 of "
                           "hotkernel serve (pid 4242) in /p, pid 772 of hotkernel serve (pid 4242) in /p "
                           "(not confirmed ended)); they were asked to end for the timed runs and start "
                           "again after their session's next bench or verify"));
    }

    // The group is read from /proc: this process's own.
    void processGroupIsReadFromProc()
    {
        QCOMPARE(GpuSharing::processGroupOf(::getpid()), (long long)::getpgrp());
        QCOMPARE(GpuSharing::processGroupOf(-5), 0LL);
    }
};

QTEST_GUILESS_MAIN(TestGpuSharing)
#include "tst_gpusharing.moc"
