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
};

QTEST_GUILESS_MAIN(TestGpuSharing)
#include "tst_gpusharing.moc"
