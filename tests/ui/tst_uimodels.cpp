// SPDX-License-Identifier: Apache-2.0
// Every model of the window under QAbstractItemModelTester, plus what each adds: delta rows,
// numeric sorting, hot lines, the diff alignment, the feed following jobs, target discovery.
#include "agentfeedmodel.h"
#include "highlighting.h"
#include "inspect/sassparser.h"
#include "kernelfilterproxy.h"
#include "kerneltablemodel.h"
#include "kerneltableview.h"
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
#include <QTableView>
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

QStringList names(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *n : list)
        out.append(QString::fromLatin1(n));
    return out;
}

QStringList namesInOrder(const QAbstractItemModel &model)
{
    QStringList names;
    for (int r = 0; r < model.rowCount(); ++r)
        names.append(model.index(r, 0).data(KernelTableModel::KernelNameRole).toString());
    return names;
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
        before.kernels = {kernel(QStringLiteral("a"), 1000, 10, 0.6),
                          kernel(QStringLiteral("gone"), 500, 1, 0.4)};
        KernelTable after;
        after.kernels = {kernel(QStringLiteral("a"), 500, 10, 0.7),
                         kernel(QStringLiteral("new"), 200, 2, 0.3)};
        model.setTable(after);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(KernelTableModel::ColumnCount));
        QCOMPARE(model.index(0, KernelTableModel::NameColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("a"));
        model.setDelta(before, after);
        QCOMPARE(model.rowCount(), 3); // a, new, gone
        QCOMPARE(model.index(0, 0).data(KernelTableModel::DeltaRole).toDouble(), -0.5);
        QCOMPARE(model.index(0, KernelTableModel::DeltaColumn).data().toString(), QStringLiteral("-50.0 %"));
        QCOMPARE(model.index(1, KernelTableModel::DeltaColumn).data().toString(), QStringLiteral("added"));
        QCOMPARE(model.index(2, 0).data().toString(), QStringLiteral("gone"));
        QCOMPARE(model.index(2, KernelTableModel::DeltaColumn).data().toString(), QStringLiteral("removed"));
    }

    void kernelProxySortsNumbersAndFilters()
    {
        KernelTableModel model;
        KernelFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        KernelTable t;
        // 9 < 10 as numbers but "9" > "10" as text: the proxy must compare numbers.
        t.kernels = {kernel(QStringLiteral("k_small"), 9, 1, 0.1),
                     kernel(QStringLiteral("k_big"), 10, 1, 0.9), kernel(QStringLiteral("other"), 5, 1, 0.0)};
        model.setTable(t);
        proxy.sort(KernelTableModel::AverageColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data(KernelTableModel::KernelNameRole).toString(),
                 QStringLiteral("k_big"));
        proxy.setNameFilter(QStringLiteral("K_"));
        QCOMPARE(proxy.rowCount(), 2);
    }

    void kernelSortOrders()
    {
        KernelTableModel model;
        KernelFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        KernelTable t; // report order: heaviest first
        t.kernels = {
            kernel(QStringLiteral("beta_k"), 100, 10, 0.4), kernel(QStringLiteral("Alpha_k"), 30, 20, 0.3),
            kernel(QStringLiteral("Gamma"), 9, 50, 0.2), kernel(QStringLiteral("delta_k"), 1000, 1, 0.1)};
        t.kernels[1].grid = QStringLiteral("(4096, 1, 1)");
        t.kernels[2].grid = QStringLiteral("(512, 2, 1)");
        t.kernels[3].grid = QStringLiteral("(96, 1, 1)");
        model.setTable(t);
        QCOMPARE(namesInOrder(proxy), names({"beta_k", "Alpha_k", "Gamma", "delta_k"}));

        // Totals 1000, 600, 450, 1000: ties keep the report's order.
        proxy.sort(KernelTableModel::TotalColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"beta_k", "delta_k", "Alpha_k", "Gamma"}));
        proxy.sort(KernelTableModel::AverageColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Gamma", "Alpha_k", "beta_k", "delta_k"}));
        // Names without regard to case: a plain compare would put "Gamma" before "beta_k".
        proxy.sort(KernelTableModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k", "Gamma"}));
        proxy.sort(KernelTableModel::NameColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Gamma", "delta_k", "beta_k", "Alpha_k"}));
        // Launch shapes by size ((512, 2, 1) is 1024 > 96 although "(5" < "(9" as text); unknown last.
        proxy.sort(KernelTableModel::GridColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"delta_k", "Gamma", "Alpha_k", "beta_k"}));
        proxy.sort(KernelTableModel::GridColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "Gamma", "delta_k", "beta_k"}));

        // Filtering keeps the sorted order, and sorting a filtered view sorts what is shown.
        proxy.sort(KernelTableModel::CallsColumn, Qt::DescendingOrder);
        proxy.setNameFilter(QStringLiteral("_K"));
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k"}));
        proxy.sort(KernelTableModel::AverageColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"delta_k", "beta_k", "Alpha_k"}));
        proxy.sort(KernelTableModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k"}));
        proxy.setNameFilter(QString());
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k", "Gamma"}));
        // A real regular expression goes through Qt's own matching; a fixed string holding an
        // expression's special characters stays literal.
        proxy.setFilterRegularExpression(QStringLiteral("^(alpha|gamma)"));
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "Gamma"}));
        proxy.setNameFilter(QStringLiteral("HA_"));
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k"}));
        proxy.setNameFilter(QStringLiteral("a|g"));
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setNameFilter(QString());

        // The order survives a new table, and -1 gives the report's order back.
        KernelTable other = t;
        std::reverse(other.kernels.begin(), other.kernels.end());
        model.setTable(other);
        QCOMPARE(namesInOrder(proxy), names({"Alpha_k", "beta_k", "delta_k", "Gamma"}));
        model.sort(-1);
        QCOMPARE(namesInOrder(proxy), names({"delta_k", "Gamma", "Alpha_k", "beta_k"}));
    }

    void kernelSortKeepsSelectionAndUnknownLast()
    {
        KernelTableView view;
        KernelTable before;
        before.kernels = {kernel(QStringLiteral("a"), 100, 1, 0.5), kernel(QStringLiteral("b"), 100, 1, 0.3),
                          kernel(QStringLiteral("c"), 100, 1, 0.2)};
        KernelTable after;
        // a: -50 %, b: +100 %, new: no delta (NaN) -> last both ways; c went away -> no delta either.
        after.kernels = {kernel(QStringLiteral("a"), 50, 1, 0.2), kernel(QStringLiteral("b"), 200, 1, 0.7),
                         kernel(QStringLiteral("new"), 10, 1, 0.1)};
        view.setTables({after, before});
        view.showReports(0, 1);
        QAbstractItemModelTester tester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(view.selectKernel(QStringLiteral("b")));
        view.table()->sortByColumn(KernelTableModel::DeltaColumn, Qt::AscendingOrder);
        QCOMPARE(namesInOrder(*view.proxy()).mid(0, 2), names({"a", "b"}));
        view.table()->sortByColumn(KernelTableModel::DeltaColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(*view.proxy()).mid(0, 2), names({"b", "a"}));
        // The selection follows its kernel through every sort (persistent indexes moved).
        QCOMPARE(view.selectedKernel(), QStringLiteral("b"));
        QCOMPARE(view.table()->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(view.table()
                     ->selectionModel()
                     ->selectedRows()
                     .first()
                     .data(KernelTableModel::KernelNameRole)
                     .toString(),
                 QStringLiteral("b"));
        view.table()->sortByColumn(KernelTableModel::NameColumn, Qt::DescendingOrder);
        QCOMPARE(namesInOrder(*view.proxy()), names({"new", "c", "b", "a"}));
        QCOMPARE(view.table()->currentIndex().row(), 2);
        QCOMPARE(view.selectedKernel(), QStringLiteral("b"));
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
        QCOMPARE(model.index(0, VerifyHistoryModel::SpeedupColumn).data().toString(),
                 QStringLiteral("2.000x"));
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
        Session session([&] {
            SessionOptions o;
            o.workDir = dir.path();
            return o;
        }());
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
        QVERIFY(model.index(1, AgentFeedModel::ResultColumn)
                    .data()
                    .toString()
                    .contains(QLatin1String("no_such_tool")));
        QCOMPARE(model.index(0, AgentFeedModel::JobIdRole).data().toULongLong(), 0u);

        // An agent leaving is a line of its own, after the jobs, and never mistaken for a job.
        model.addEvent(QStringLiteral("claude"), QStringLiteral("disconnected"),
                       QStringLiteral("agent claude disconnected; 1 job ended"));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(2, AgentFeedModel::ClientColumn).data().toString(), QStringLiteral("claude"));
        QCOMPARE(model.index(2, AgentFeedModel::ResultColumn).data().toString(),
                 QStringLiteral("agent claude disconnected; 1 job ended"));
        QCOMPARE(model.index(2, 0).data(AgentFeedModel::StateRole).toString(), QStringLiteral("event"));
        QVERIFY(!model.index(2, 0).data(AgentFeedModel::RunningRole).toBool());
        QVERIFY(!model.jobAt(2));
        QCOMPARE(model.rowForJob(job->id()), 1);
    }

    void targets()
    {
        QTemporaryDir dir;
        for (const char *name :
             {"rmsnorm_baseline.py", "rmsnorm_candidate.py", "solo_baseline.py", "notes.py"}) {
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
        QCOMPARE(model.index(0, TargetsModel::LatestBenchColumn).data().toString(),
                 QStringLiteral("mean 1.0 ms"));
        QCOMPARE(model.index(0, TargetsModel::RecordsColumn).data().toInt(), 1);
        QCOMPARE(model.index(1, TargetsModel::CandidateColumn).data().toString(), QStringLiteral("missing"));
    }
};

QTEST_MAIN(TestUiModels)
#include "tst_uimodels.moc"
