// SPDX-License-Identifier: Apache-2.0
// Every model of the window under QAbstractItemModelTester, plus what each adds: delta rows,
// numeric sorting, hot lines, the diff alignment, the feed following jobs, target discovery.
#include "agentfeedmodel.h"
#include "highlighting.h"
#include "inspect/sassparser.h"
#include "kernelfilterproxy.h"
#include "kerneltablemodel.h"
#include "sassdiff.h"
#include "sassmodel.h"
#include "session/job.h"
#include "session/session.h"
#include "targetsmodel.h"
#include "verifyhistorymodel.h"

#include <KSyntaxHighlighting/Repository>
#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {

KernelStat kernel(const QString &name, double avgNs, int calls, double share)
{
    KernelStat k;
    k.name = name;
    k.calls = calls;
    k.avgNs = avgNs;
    k.totalNs = avgNs * calls;
    k.share = share;
    k.registersPerThread = 32;
    return k;
}

SassFunction realFunction()
{
    QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/ui/rmsnorm.cuobjdump.sass"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    auto functions = SassParser::parseSass(f.readAll());
    return functions.empty() ? SassFunction{} : functions.front();
}

} // namespace

class TestUiModels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void kernelTable()
    {
        KernelTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        KernelTable before;
        before.kernels = {kernel(QStringLiteral("a"), 1000, 10, 0.6), kernel(QStringLiteral("gone"), 500, 1, 0.4)};
        KernelTable after;
        after.kernels = {kernel(QStringLiteral("a"), 500, 10, 0.7), kernel(QStringLiteral("new"), 200, 2, 0.3)};
        model.setTable(after);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(KernelTableModel::ColumnCount));
        QCOMPARE(model.index(0, KernelTableModel::NameColumn).data(Qt::ToolTipRole).toString(), QStringLiteral("a"));
        model.setDelta(before, after);
        QCOMPARE(model.rowCount(), 3); // a, new, gone
        QCOMPARE(model.index(0, 0).data(KernelTableModel::DeltaRole).toDouble(), -0.5);
        QCOMPARE(model.index(0, KernelTableModel::DeltaColumn).data().toString(), QStringLiteral("-50.0 %"));
        QCOMPARE(model.index(1, KernelTableModel::DeltaColumn).data().toString(), QStringLiteral("new"));
        QVERIFY(model.index(2, 0).data().toString().contains(QLatin1String("gone")));
    }

    void kernelProxySortsNumbersAndFilters()
    {
        KernelTableModel model;
        KernelFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        KernelTable t;
        // 9 < 10 as numbers but "9" > "10" as text: the proxy must compare numbers.
        t.kernels = {kernel(QStringLiteral("k_small"), 9, 1, 0.1), kernel(QStringLiteral("k_big"), 10, 1, 0.9),
                     kernel(QStringLiteral("other"), 5, 1, 0.0)};
        model.setTable(t);
        proxy.sort(KernelTableModel::AverageColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data(KernelTableModel::KernelNameRole).toString(), QStringLiteral("k_big"));
        proxy.setFilterFixedString(QStringLiteral("K_"));
        QCOMPARE(proxy.rowCount(), 2);
    }

    void sassModel()
    {
        SassFunction f = realFunction();
        QVERIFY(f.instructions.size() > 50);
        // Stall samples on two lines (test values): both are among the hot lines, others are not.
        f.instructions[10].stallSamples = 900;
        f.instructions[20].stallSamples = 100;
        f.instructions[30].stallSamples = 0;
        SassModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFunction(f);
        QCOMPARE(model.rowCount(), int(f.instructions.size()));
        QVERIFY(model.index(10, 0).data(SassModel::IsHotRole).toBool());
        QVERIFY(model.index(20, 0).data(SassModel::IsHotRole).toBool());
        QVERIFY(!model.index(30, 0).data(SassModel::IsHotRole).toBool());
        QCOMPARE(model.index(10, 0).data(SassModel::HotnessRole).toDouble(), 1.0);
        const int row = model.find(QStringLiteral("SHFL.BFLY"), 0);
        QVERIFY(row > 0);
        QVERIFY(model.lineText(row).contains(QLatin1String("SHFL.BFLY")));
        QTextLayout *layout = model.layout(row, QFont());
        QVERIFY(layout);
        QVERIFY(!layout->formats().isEmpty()); // highlighted
        const quint64 address = model.index(row, 0).data(SassModel::AddressRole).toULongLong();
        QCOMPARE(model.rowForAddress(address), row);
        model.setTheme(Highlighting::repository().defaultTheme(KSyntaxHighlighting::Repository::DarkTheme));
        QVERIFY(model.layout(row, QFont()));
    }

    void sassDiff()
    {
        const SassFunction a = realFunction();
        SassFunction b = a;
        b.instructions.erase(b.instructions.begin() + 5);
        SassInstruction extra;
        extra.text = QStringLiteral("NOP ;");
        b.instructions.insert(b.instructions.begin() + 40, extra);
        const SassDiff diff = SassDiff::align(a, b);
        QCOMPARE(diff.left.size(), diff.right.size());
        QCOMPARE(diff.changedLines, 2);
        SassModel left;
        QAbstractItemModelTester tester(&left, QAbstractItemModelTester::FailureReportingMode::QtTest);
        left.setFunction(a, diff.left);
        int removed = 0;
        for (int r = 0; r < left.rowCount(); ++r)
            removed += left.index(r, 0).data(SassModel::DiffStatusRole).toInt() == SassModel::Removed;
        QCOMPARE(removed, 1);
    }

    void verifyHistory()
    {
        VerifyHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        VerifyRecord r;
        r.target = QStringLiteral("t");
        r.verdict = QStringLiteral("faster");
        r.n = 7;
        r.baselineMeanMs = 2;
        r.candidateMeanMs = 1;
        r.speedup = 2;
        r.recorded = true;
        VerifyRecord other = r;
        other.target = QStringLiteral("u");
        model.setRecords({r, other});
        QCOMPARE(model.rowCount(), 2);
        model.setTarget(QStringLiteral("t"));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, VerifyHistoryModel::SpeedupColumn).data().toString(), QStringLiteral("2.000x"));
        QCOMPARE(model.index(0, VerifyHistoryModel::VerdictColumn).data(Qt::ForegroundRole).value<QColor>(),
                 VerifyHistoryModel::verdictColor(QStringLiteral("faster")));
        model.addRecord(other); // another target: not shown
        QCOMPARE(model.rowCount(), 1);
        model.addRecord(r);
        QCOMPARE(model.rowCount(), 2);
    }

    void agentFeed()
    {
        QTemporaryDir dir;
        Session session([&] { SessionOptions o; o.workDir = dir.path(); return o; }());
        AgentFeedModel model(&session);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        RunSummary old;
        old.tool = QStringLiteral("bench");
        old.client = QStringLiteral("cli");
        old.reloaded = true;
        model.setReloadedRuns({old});
        Job *job = session.start(QStringLiteral("no_such_tool"), Json::object(), QStringLiteral("agent"));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(1, AgentFeedModel::ClientColumn).data().toString(), QStringLiteral("agent"));
        QVERIFY(model.index(1, 0).data(AgentFeedModel::RunningRole).toBool());
        QTRY_COMPARE(job->state(), Job::State::Failed);
        QTRY_VERIFY(!model.index(1, 0).data(AgentFeedModel::RunningRole).toBool());
        QVERIFY(model.index(1, AgentFeedModel::ResultColumn).data().toString().contains(QLatin1String("no_such_tool")));
        QCOMPARE(model.index(0, AgentFeedModel::JobIdRole).data().toULongLong(), 0u);
    }

    void targets()
    {
        QTemporaryDir dir;
        for (const char *name : {"rmsnorm_baseline.py", "rmsnorm_candidate.py", "solo_baseline.py", "notes.py"}) {
            QFile f(dir.filePath(QString::fromLatin1(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        TargetsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        RunSummary bench;
        bench.tool = QStringLiteral("bench");
        bench.arguments = QStringLiteral("script=rmsnorm_candidate.py");
        bench.summary = QStringLiteral("mean 1.0 ms");
        VerifyRecord r;
        r.target = QStringLiteral("rmsnorm");
        r.recorded = true;
        r.speedup = 1.5;
        r.who = QStringLiteral("agent");
        model.refresh(dir.path(), {bench}, {r});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, TargetsModel::NameColumn).data().toString(), QStringLiteral("rmsnorm"));
        QCOMPARE(model.index(0, TargetsModel::LatestBenchColumn).data().toString(), QStringLiteral("mean 1.0 ms"));
        QCOMPARE(model.index(0, TargetsModel::RecordsColumn).data().toInt(), 1);
        QCOMPARE(model.index(1, TargetsModel::CandidateColumn).data().toString(), QStringLiteral("missing"));
    }
};

QTEST_MAIN(TestUiModels)
#include "tst_uimodels.moc"
