// SPDX-License-Identifier: Apache-2.0
// TreeFreeze (issue 41): every process below a supervisor stops, a setsid grandchild and a
// double-forked orphan included, a tree that forks while it is being stopped included, and all of
// them run again after the thaw; nothing outside the tree (hotkernel, the supervisor, a bystander)
// is ever stopped.
#include "markedprocesses.h"
#include "process/processancestry.h"
#include "process/supervisor.h"
#include "process/treefreeze.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <memory>
#include <unistd.h>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {

constexpr int SettleMs = 60000;

char stateOf(long long pid)
{
    const std::optional<QList<QByteArray>> fields = ProcessAncestry::statFields(pid);
    return fields && !fields->isEmpty() && !fields->at(0).isEmpty() ? fields->at(0).at(0) : '?';
}

QList<long long> pidsOf(const QByteArray &marker, const QByteArray &command)
{
    QList<long long> pids;
    for (const MarkedProcess &p : markedProcesses(marker))
        if (p.command == command)
            pids << p.pid;
    return pids;
}

// `sh -c script` with the marker in its environment, under hotkernel-supervise when supervised.
std::unique_ptr<QProcess> startShell(const QByteArray &marker, const QString &script, bool supervised)
{
    auto process = std::make_unique<QProcess>();
    process->setProgram(QStringLiteral("sh"));
    process->setArguments({QStringLiteral("-c"), script});
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromLatin1(markerName(marker)), QString::fromLatin1(markerValue(marker)));
    process->setProcessEnvironment(env);
    if (supervised)
        Supervisor::wrap(*process);
    process->start();
    return process;
}

void end(QProcess &process)
{
    process.terminate(); // the supervisor ends its tree (SIGTERM with a SIGCONT, then SIGKILL)
    if (!process.waitForFinished(SettleMs))
        process.kill();
    process.waitForFinished(SettleMs);
}

} // namespace

class TestTreeFreeze : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!Supervisor::helperPath().isEmpty(), "hotkernel-supervise was not built beside hotkernel");
    }

    void stopsTheWholeTreeAndNothingElse()
    {
        const QByteArray marker = newMarker();
        // A setsid grandchild, a double-forked orphan (reparented to the supervisor), three plain
        // children and the shell itself become sleeps: six.
        const auto tree = startShell(marker,
                                     QStringLiteral("setsid sleep 1000 & (sleep 1000 &); "
                                                    "for i in 1 2 3; do sleep 1000 & done; exec sleep 1000"),
                                     true);
        const auto bystander = startShell(marker, QStringLiteral("exec sleep 1000"), false);
        QVERIFY(tree->waitForStarted() && bystander->waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(pidsOf(marker, "sleep").size(), 7, SettleMs);
        const long long supervisor = tree->processId();
        const long long outside = bystander->processId();
        QList<long long> inside = pidsOf(marker, "sleep");
        inside.removeAll(outside);
        QCOMPARE(inside.size(), 6);
        for (long long pid : inside)
            QVERIFY(ProcessAncestry::lineOf(pid).contains(supervisor));
        // Both walks find the same tree: the children files and every process's parent.
        QList<long long> viaChildren = TreeFreeze::below(supervisor);
        QList<long long> viaParents = TreeFreeze::below(supervisor, true);
        std::sort(viaChildren.begin(), viaChildren.end());
        std::sort(viaParents.begin(), viaParents.end());
        std::sort(inside.begin(), inside.end());
        QCOMPARE(viaChildren, inside);
        QCOMPARE(viaParents, inside);
        {
            QElapsedTimer took;
            took.start();
            TreeFreeze freeze(supervisor);
            // What a verify pays per run for the stop (the thaw is a signal per process).
            qInfo("stopping 6 processes took %.2f ms in %d walks", took.nsecsElapsed() / 1e6, freeze.walks());
            QVERIFY2(freeze.error().isEmpty(), qPrintable(freeze.error()));
            QCOMPARE(freeze.stopped(), 6);
            QCOMPARE(freeze.unconfirmed(), 0);
            for (long long pid : inside)
                QVERIFY2(stateOf(pid) == 'T', qPrintable(QStringLiteral("%1 is not stopped").arg(pid)));
            QVERIFY(stateOf(supervisor) != 'T'); // it must stay able to end the tree
            QVERIFY(stateOf(outside) != 'T');
            QVERIFY(stateOf(::getpid()) != 'T');
            QVERIFY(freeze.pids().contains(inside.first()));
        } // the destructor thaws
        for (long long pid : inside)
            QTRY_VERIFY_WITH_TIMEOUT(stateOf(pid) != 'T', SettleMs);
        end(*tree);
        end(*bystander);
        QTRY_VERIFY_WITH_TIMEOUT(markedProcesses(marker).isEmpty(), SettleMs);
    }

    void stopsATreeThatForksMeanwhile()
    {
        const QByteArray marker = newMarker();
        const auto tree = startShell(
            marker, QStringLiteral("i=0; while [ $i -lt 400 ]; do sleep 1000 & i=$((i+1)); done; wait"),
            true);
        QVERIFY(tree->waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(pidsOf(marker, "sleep").size() >= 5, SettleMs);
        TreeFreeze freeze(tree->processId());
        QVERIFY2(freeze.error().isEmpty(), qPrintable(freeze.error()));
        const QList<MarkedProcess> frozen = markedProcesses(marker);
        int running = 0;
        for (const MarkedProcess &p : frozen)
            if (p.pid != tree->processId() && stateOf(p.pid) != 'T')
                ++running;
        QCOMPARE(running, 0);
        // Nothing stopped can fork: the tree stays as it was.
        QTest::qWait(200);
        QCOMPARE(markedProcesses(marker).size(), frozen.size());
        QCOMPARE(freeze.stopped(), frozen.size() - 1); // all but the supervisor
        freeze.thaw();
        freeze.thaw(); // idempotent
        QTRY_VERIFY_WITH_TIMEOUT(pidsOf(marker, "sleep").size() == 400, SettleMs);
        end(*tree);
        QTRY_VERIFY_WITH_TIMEOUT(markedProcesses(marker).isEmpty(), SettleMs);
    }

    void stopsAnUnsupervisedRootToo()
    {
        const QByteArray marker = newMarker();
        const auto tree = startShell(marker, QStringLiteral("sleep 1000 & wait"), false);
        QVERIFY(tree->waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(pidsOf(marker, "sleep").size(), 1, SettleMs);
        {
            TreeFreeze freeze(tree->processId());
            QCOMPARE(freeze.stopped(), 2);
            QCOMPARE(stateOf(tree->processId()), 'T');
            QCOMPARE(stateOf(pidsOf(marker, "sleep").first()), 'T');
        }
        QTRY_VERIFY_WITH_TIMEOUT(stateOf(tree->processId()) != 'T', SettleMs);
        ::kill(pid_t(pidsOf(marker, "sleep").value(0)), SIGKILL);
        tree->kill();
        tree->waitForFinished(SettleMs);
    }

    void refusesHotkernelAndItsAncestors()
    {
        for (long long root : {0LL, 1LL, (long long)(::getpid()), (long long)(::getppid())}) {
            TreeFreeze freeze(root);
            QVERIFY(!freeze.error().isEmpty());
            QCOMPARE(freeze.stopped(), 0);
        }
        QVERIFY(stateOf(::getppid()) != 'T');
    }
};

QTEST_GUILESS_MAIN(TestTreeFreeze)
#include "tst_treefreeze.moc"
