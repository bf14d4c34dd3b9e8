// SPDX-License-Identifier: Apache-2.0
// What issue 22 asks of the window, each seen by a test: the SASS view opens on the hottest line
// and steps through the hot ones, the roofline's axes hold every point and roof, the kernel
// comparison reads before -> after, the history shows every row, results open in full, dialogs
// show numbers as written, and without a display the binary says what to do and exits 2.
#include "agentfeedmodel.h"
#include "agentfeedview.h"
#include "demosession.h"
#include "faketools.h"
#include "heatscrollbar.h"
#include "kerneltablemodel.h"
#include "kerneltableview.h"
#include "mainwindow.h"
#include "measure/benchrun.h"
#include "resultdetailsdialog.h"
#include "rooflinechartview.h"
#include "sassmodel.h"
#include "sassview.h"
#include "schemaformdialog.h"
#include "targetsmodel.h"
#include "tools/builtintools.h"
#include "verifyhistorymodel.h"
#include "verifyhistoryview.h"
#include "windowoptions.h"
#include "workspace/workspace.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QColor>
#include <QDir>
#include <QDoubleSpinBox>
#include <QHash>
#include <QHeaderView>
#include <QImage>
#include <QPolygonF>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyle>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {

// The bundled demo directory: real profiles, listings and records from the GPU machine.
Workspace demoWorkspace()
{
    Workspace w = Workspace::load(QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/demo"));
    w.loadCalibration();
    return w;
}

const SassFunction *hotFunction(const Workspace &w)
{
    for (const SassFunction &f : w.functions) {
        if (std::any_of(f.instructions.begin(), f.instructions.end(),
                        [](const SassInstruction &in) { return in.stallSamples.value_or(0) > 0; }))
            return &f;
    }
    return nullptr;
}

KernelStat kernel(const QString &name, double avgNs)
{
    KernelStat k;
    k.name = name;
    k.calls = 1;
    k.avgNs = k.totalNs = avgNs;
    k.share = 0.5;
    return k;
}

VerifyRecord record(int i, double speedup)
{
    VerifyRecord r;
    r.time = QDateTime(QDate(2026, 12, 2), QTime(10, i));
    r.target = QStringLiteral("t");
    r.n = 7;
    r.baselineMeanMs = 1.0;
    r.baselineStdMs = 0.01;
    r.candidateMeanMs = 1.0 / speedup;
    r.candidateStdMs = 0.001;
    r.verdict = speedup > 1 ? QStringLiteral("faster") : QStringLiteral("slower");
    r.speedup = speedup;
    r.recorded = true;
    return r;
}

// The share of pixels that differ from the picture's most common colour.
double nonBackgroundShare(const QString &path)
{
    const QImage image(path);
    if (image.isNull())
        return 0;
    QHash<QRgb, int> counts;
    int total = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            ++counts[image.pixel(x, y)];
            ++total;
        }
    }
    int most = 0;
    for (int c : std::as_const(counts))
        most = std::max(most, c);
    return total > 0 ? 1.0 - double(most) / double(total) : 0;
}

double meanLightness(const QString &path)
{
    const QImage image(path);
    if (image.isNull())
        return -1;
    double sum = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x)
            sum += QColor(image.pixel(x, y)).lightnessF();
    }
    return sum / (double(image.width()) * image.height());
}

QProcessEnvironment withoutDisplay()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *key : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QLatin1String(key));
    return env;
}

} // namespace

class TestWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("hotkernel-tests"));
        QStandardPaths::setTestModeEnabled(true);
    }

    void sassOpensOnTheHottestLine()
    {
        const Workspace w = demoWorkspace();
        const SassFunction *f = hotFunction(w);
        QVERIFY2(f, "the demo's listing has stall samples");
        SassView view;
        view.resize(900, 300); // a dozen rows: the hottest line is far below the first screen
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setFunction(*f);
        const int hottest = view.model()->hottestRow();
        QVERIFY(hottest > 20);
        QCOMPARE(view.currentRow(), hottest);
        // Centred: the hottest row sits in the middle half of the viewport, not below the first screen.
        QTableView *table = view.table();
        const int shownRow = table->currentIndex().row();
        QTRY_VERIFY(table->rowViewportPosition(shownRow) >= table->viewport()->height() / 4 &&
                    table->rowViewportPosition(shownRow) <= table->viewport()->height() * 3 / 4);
        // Heat marks on the scroll bar, one per hot line; next/previous walk them in order.
        QCOMPARE(view.heatBar()->marks().size(), view.model()->hotRows().size());
        const std::vector<int> hot = view.model()->hotRows();
        QVERIFY(hot.size() >= 2);
        const int next = view.nextHot(true);
        QVERIFY(next != hottest);
        QVERIFY(std::find(hot.begin(), hot.end(), next) != hot.end());
        QCOMPARE(view.nextHot(false), hottest);
        // Sortable: samples descending puts the hottest first; the top stall reason shows.
        table->sortByColumn(SassModel::StallSamplesColumn, Qt::DescendingOrder);
        QCOMPARE(table->model()->index(0, SassModel::AddressColumn).data(SassModel::AddressRole),
                 view.model()->index(hottest, 0).data(SassModel::AddressRole));
        QVERIFY(!table->model()->index(0, SassModel::TopStallColumn).data().toString().isEmpty());
        QVERIFY(!table->isColumnHidden(SassModel::TopStallColumn));
    }

    void selectedHotLineKeepsItsHeatReadable()
    {
        // The style fills a selected cell with the full highlight before the delegate paints; on it
        // the heat and the orange immediates were unreadable (light theme). The selected hottest
        // line must read as a light red wash: lighter than the highlight, redder than blue.
        const Workspace w = demoWorkspace();
        const SassFunction *f = hotFunction(w);
        QVERIFY(f);
        SassView view;
        view.resize(900, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setFunction(*f);
        QTableView *table = view.table();
        const int row = table->currentIndex().row();
        QVERIFY(table->selectionModel()->isRowSelected(row, QModelIndex()));
        QTRY_VERIFY(table->rowViewportPosition(row) >= 0);
        const QImage image = table->viewport()->grab().toImage();
        const int x = table->columnViewportPosition(SassModel::AddressColumn) +
                      table->columnWidth(SassModel::AddressColumn) - 4; // right of the short address
        const int y = table->rowViewportPosition(row) + table->rowHeight(row) / 2;
        const QColor cell = image.pixelColor(x * image.width() / table->viewport()->width(),
                                             y * image.height() / table->viewport()->height());
        const QColor highlight = table->palette().color(QPalette::Highlight);
        QVERIFY2(
            cell.lightness() > highlight.lightness() + 40,
            qPrintable(
                QStringLiteral("selected hot cell %1, highlight %2").arg(cell.name(), highlight.name())));
        QVERIFY2(cell.red() > cell.blue(), qPrintable(cell.name()));
    }

    void rooflineAxesHoldEveryPointAndRoof()
    {
        const Workspace w = demoWorkspace();
        QVERIFY(!w.kernelTables.empty());
        for (const KernelTable &t : w.kernelTables) {
            const RooflineData data = RooflineChartView::validated(w.roofline(w.records, &t), nullptr);
            QVERIFY(!data.ceilings.empty());
            const auto r = RooflineChartView::fittedRanges(data);
            double highest = 0;
            for (const RooflinePoint &p : data.points) {
                QVERIFY2(p.intensity >= r.xMin && p.intensity <= r.xMax, qPrintable(p.label));
                QVERIFY2(p.flopsPerSecond >= r.yMin && p.flopsPerSecond <= r.yMax, qPrintable(p.label));
            }
            for (const RooflineCeiling &c : data.ceilings) {
                if (c.kind == QLatin1String("compute")) {
                    QVERIFY2(c.value >= r.yMin && c.value <= r.yMax, qPrintable(c.label));
                    highest = std::max(highest, c.value);
                } else {
                    QVERIFY2(c.value * r.xMin >= r.yMin, qPrintable(c.label)); // its start is on the chart
                }
            }
            // Fitted, not decades of empty space above the highest roof (1e17 against 1e15).
            QVERIFY(r.yMax < highest * 4);
        }
        // A card named explicitly draws its spec ceilings with no calibration or record at all.
        Workspace bare;
        bare.card = QStringLiteral("h200-sxm");
        QVERIFY(!bare.roofline({}).ceilings.empty());
        // Point colours are fixed per kind: themes and profiles do not change them.
        QCOMPARE(RooflineChartView::kindColor(QStringLiteral("baseline")),
                 RooflineChartView::kindColor(QStringLiteral("baseline")));
        QVERIFY(RooflineChartView::kindColor(QStringLiteral("baseline")) !=
                RooflineChartView::kindColor(QStringLiteral("candidate")));
    }

    void aGeneratedKernelNameLeavesTheNsightColumnsOnScreen()
    {
        // A Triton-generated name longer than the view is cut at its end; it does not push Bound
        // off screen the way a whole-name minimum would.
        KernelTable table;
        table.path = QStringLiteral("/x/long.csv");
        table.kernels = {kernel(QStringLiteral("triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_"
                                               "native_layer_norm_backward_convolution_0"),
                                100)};
        KernelTableView view;
        view.resize(900, 300);
        view.setTables({table});
        view.showReports(0, -1);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTableView *t = view.table();
        const int bound = KernelTableModel::BoundColumn;
        QVERIFY(t->horizontalHeader()->sectionViewportPosition(bound) + t->columnWidth(bound) <=
                t->viewport()->width());
        QVERIFY(t->columnWidth(KernelTableModel::NameColumn) >= 200);
    }

    void kernelCompareReadsBeforeToAfter()
    {
        // The short names themselves: tst_uimodels (kernelShortNames).
        KernelTable before;
        before.path = QStringLiteral("/x/before.csv");
        before.kernels = {kernel(QStringLiteral("shared"), 100),
                          kernel(QStringLiteral("void ns::old_kernel<int>(int)"), 50)};
        KernelTable after;
        after.path = QStringLiteral("/x/after.csv");
        after.kernels = {kernel(QStringLiteral("shared"), 50), kernel(QStringLiteral("new_kernel"), 10)};
        KernelTableView view;
        view.setTables({after, before}); // newest first, as the workspace lists them
        view.showReports(0, 1);
        QCOMPARE(view.comparisonText(), QStringLiteral("before.csv -> after.csv"));
        KernelTableModel *m = view.model();
        const int added = m->rowForKernel(QStringLiteral("new_kernel"));
        const int removed = m->rowForKernel(QStringLiteral("void ns::old_kernel<int>(int)"));
        const int shared = m->rowForKernel(QStringLiteral("shared"));
        QCOMPARE(m->index(added, KernelTableModel::DeltaColumn).data().toString(), QStringLiteral("added"));
        QCOMPARE(m->index(removed, KernelTableModel::NameColumn).data().toString(),
                 QStringLiteral("old_kernel<…>"));
        QCOMPARE(m->index(removed, KernelTableModel::DeltaColumn).data().toString(),
                 QStringLiteral("removed"));
        QCOMPARE(m->index(shared, KernelTableModel::DeltaColumn).data().toString(),
                 QStringLiteral("-50.0 %"));
        // The full name stays in the tooltip.
        QVERIFY(m->index(removed, KernelTableModel::NameColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("ns::old_kernel<int>")));
        // Nsight's columns first.
        QCOMPARE(int(KernelTableModel::ShareColumn), 1);
        QVERIFY(KernelTableModel::DramColumn < KernelTableModel::CallsColumn);
    }

    void historyShowsEveryRowOnAFittedAxis()
    {
        VerifyHistoryModel model;
        std::vector<VerifyRecord> records;
        for (int i = 0; i < 6; ++i)
            records.push_back(record(i, 12.5 + 0.08 * i));
        model.setRecords(records);
        model.setTarget(QStringLiteral("t"));
        VerifyHistoryView view(&model);
        view.resize(1000, 330);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(model.rowCount(), 6);
        QTableView *table = view.table();
        // Every row on screen at the dock's default height.
        QTRY_VERIFY(table->rowViewportPosition(5) + table->rowHeight(5) <= table->viewport()->height());
        // Microseconds, as record and the leaderboard write them (issue 45).
        QCOMPARE(model.index(0, VerifyHistoryModel::BaselineColumn).data().toString(),
                 QStringLiteral("1000.00 ± 10.00"));
        QVERIFY(model.headerData(VerifyHistoryModel::BaselineColumn, Qt::Horizontal)
                    .toString()
                    .contains(QLatin1String("us")));
        // 12.5x-12.9x keeps the baseline's 1x in range (issue 45) on a log axis, where 12.5 and
        // 12.9 stay apart rather than a flat line at the top of 0-13x.
        QVERIFY(view.speedupAxisIsLog());
        QVERIFY(view.speedupRange().first <= 1.0);
        QVERIFY(view.speedupRange().second < 20);
        records.push_back(record(7, 0.5));
        model.setRecords(records);
        QVERIFY(view.speedupAxisIsLog()); // 0.5x beside 12.9x
        QVERIFY(view.speedupRange().first < 0.5);
        // Close to 1x: linear, fitted to the speedups and 1x.
        model.setRecords({record(0, 1.10), record(1, 1.20)});
        QVERIFY(!view.speedupAxisIsLog());
        QVERIFY(view.speedupRange().first <= 1.0 && view.speedupRange().second >= 1.2);
    }

    void feedRowsOpenInFull()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        test::installFakeVerify(session);
        AgentFeedModel model(&session);
        AgentFeedView view(&session, &model);
        Job *job =
            session.start(QStringLiteral("verify"), Json{{"n", 1}, {"pause_ms", 1}}, QStringLiteral("agent"));
        QTRY_VERIFY(job->state() != Job::State::Running);
        QCOMPARE(model.rowCount(), 1);
        auto *dialog = qobject_cast<ResultDetailsDialog *>(view.openDetails(0));
        QVERIFY(dialog);
        QVERIFY(dialog->text().contains(QLatin1String("faster: 2.000x")));
        QVERIFY(dialog->json().contains(QLatin1String("\"candidate_stats\"")));
        dialog->close();
        // A bench's summary is its time, not its command.
        const Json bench{{"stats", {{"n", 7}, {"mean_ms", 0.2904}, {"std_ms", 0.1061}}}};
        QCOMPARE(BenchRun::headline(bench), QStringLiteral("290.40 ± 106.10 us (n 7)"));
    }

    void demoShowsItsRecordedBenchAndFeedRows()
    {
        // The demo's bench and gpu-info calls, recorded on the H200, as a live session shows them:
        // Latest bench is the last bench's time, each call a feed row whose details hold it all.
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        const QString demo = QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/demo");
        QString error;
        const QList<RunSummary> runs = DemoSession::recordedRuns(demo, session.tools(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(runs.size(), qsizetype(3));
        // Microseconds, as record and the leaderboard write them (issue 45).
        QCOMPARE(runs[0].summary, QStringLiteral("36.06 ± 0.22 us (n 7)"));
        QCOMPARE(runs[1].summary, QStringLiteral("459.14 ± 1.50 us (n 7)"));
        QCOMPARE(runs[2].tool, QStringLiteral("gpu_info"));

        TargetsModel targets;
        targets.refresh(demo, runs, {});
        QCOMPARE(targets.rowCount(), 1);
        QCOMPARE(targets.index(0, TargetsModel::LatestBenchColumn).data().toString(),
                 QStringLiteral("baseline: 459.14 ± 1.50 us (n 7)"));

        AgentFeedModel model(&session);
        AgentFeedView view(&session, &model);
        model.setReloadedRuns(runs);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0, AgentFeedModel::DurationColumn).data().toString(), QStringLiteral("17.8 s"));
        // gpu-info's JSON has no time: the row says nothing rather than "0.0 s".
        QCOMPARE(model.index(2, AgentFeedModel::DurationColumn).data().toString(), QString());
        auto *dialog = qobject_cast<ResultDetailsDialog *>(view.openDetails(1));
        QVERIFY(dialog);
        QVERIFY(dialog->text().contains(QLatin1String("$ hotkernel bench rmsnorm_baseline.py --n 7 --json")));
        QVERIFY(dialog->text().contains(QLatin1String("[bench 8/8] run 7: 0.46041 ms")));
        QVERIFY(dialog->text().contains(QLatin1String("mean 0.45914 ms")));
        QVERIFY(dialog->json().contains(QLatin1String("\"mean_ms\": 0.4591374588012696")));
        dialog->close();
        auto *gpu = qobject_cast<ResultDetailsDialog *>(view.openDetails(2));
        QVERIFY(gpu);
        QVERIFY(gpu->json().contains(QLatin1String("\"name\": \"NVIDIA H200\"")));
        QVERIFY(gpu->text().contains(QLatin1String("started: not recorded")));
        gpu->close();
    }

    void dialogsSummariseAndWriteNumbersPlainly()
    {
        ToolSpec spec;
        spec.name = QStringLiteral("t");
        spec.description = QStringLiteral("Times a script. It runs it n times, e.g. 7, and says so.");
        spec.inputSchema =
            Json{{"type", "object"},
                 {"properties",
                  {{"timeout", {{"type", "number"}, {"default", 300}, {"description", "Seconds. Long."}}}}}};
        QCOMPARE(SchemaFormDialog::summaryOf(spec.description), QStringLiteral("Times a script."));
        SchemaFormDialog dialog(spec, Json::object());
        auto *spin = dialog.findChild<QDoubleSpinBox *>(QStringLiteral("timeout"));
        QVERIFY(spin);
        QCOMPARE(spin->text(), QStringLiteral("300 s"));
    }

    void defaultLayoutShowsNsightColumnsLabelsAndTitlesWhole()
    {
        // The window as it first opens (no saved layout), on the demo: the kernel table compares
        // the baseline's profile with the candidate's.
        QSettings().remove(QStringLiteral("window"));
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        MainWindow window(&session);
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(10000));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.size(), QSize(1600, 1000));
        window.setWorkspace(demoWorkspace());
        QTest::qWait(100);

        QTableView *table = window.kernelView()->table();
        QVERIFY(window.kernelView()->model()->isDelta());
        QHeaderView *header = table->horizontalHeader();
        // The demo's profiles ran each kernel once: Time would repeat After, so it gives way.
        QVERIFY(window.kernelView()->model()->totalRepeatsAverage());
        QVERIFY(table->isColumnHidden(KernelTableModel::TotalColumn));
        for (int c : KernelTableView::nsightColumns()) {
            const QString name = table->model()->headerData(c, Qt::Horizontal).toString();
            if (c == KernelTableModel::TotalColumn)
                continue;
            QVERIFY2(!table->isColumnHidden(c), qPrintable(name));
            const int left = header->sectionViewportPosition(c);
            QVERIFY2(left >= 0 && left + header->sectionSize(c) <= table->viewport()->width(),
                     qPrintable(QStringLiteral("%1 at %2 + %3 in %4")
                                    .arg(name)
                                    .arg(left)
                                    .arg(header->sectionSize(c))
                                    .arg(table->viewport()->width())));
            // Header text and sort arrow whole.
            QVERIFY2(header->sectionSize(c) >= header->sectionSizeHint(c), qPrintable(name));
        }
        // Opened heaviest first, the arrow on Share.
        QCOMPARE(header->sortIndicatorSection(), int(KernelTableModel::ShareColumn));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        QCOMPARE(table->model()->index(0, 0).data(KernelTableModel::KernelNameRole).toString(),
                 QStringLiteral("_rmsnorm_kernel"));
        // Every name's function reads whole at this width: cut at the right if at all, never in
        // the middle ("elementwi…kernel<…>" was issue 22's complaint).
        QVERIFY(table->textElideMode() == Qt::ElideRight);
        const int margin = table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1;
        const int textWidth = table->columnWidth(KernelTableModel::NameColumn) - 2 * margin;
        QVERIFY(table->model()->rowCount() >= 5);
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const QModelIndex index = table->model()->index(row, KernelTableModel::NameColumn);
            const QString shown = index.data().toString();
            const QString visible = table->fontMetrics().elidedText(shown, table->textElideMode(), textWidth);
            const QString function = shown.section(QLatin1Char('<'), 0, 0);
            QVERIFY2(visible.startsWith(function + QLatin1Char('<')) || visible == function,
                     qPrintable(QStringLiteral("'%1' shows as '%2'").arg(shown, visible)));
            // And the operation that tells the vectorized_elementwise_kernel rows apart reads
            // whole (<pow_tensor_…, <CUDAFuncto… was issue 22's complaint): the short name fits.
            QVERIFY2(visible == shown, qPrintable(QStringLiteral("'%1' shows as '%2'").arg(shown, visible)));
        }

        // Roofline: every ceiling keeps its label, and no two labels overlap.
        const QList<QPolygonF> labels = window.rooflineView()->ceilingLabelShapes();
        QCOMPARE(labels.size(), qsizetype(window.rooflineView()->data().ceilings.size()));
        QVERIFY(labels.size() >= 3);
        for (qsizetype i = 0; i < labels.size(); ++i) {
            for (qsizetype j = i + 1; j < labels.size(); ++j)
                QVERIFY2(!labels[i].intersects(labels[j]),
                         qPrintable(QStringLiteral("labels %1 and %2 overlap").arg(i).arg(j)));
        }
        // Nor does a label lie on another roof's line (the copy rate's label on the DRAM roof, a
        // few pixels above it, was issue 22's complaint): each line sampled every pixel.
        const QList<QLineF> lines = window.rooflineView()->ceilingLines();
        QCOMPARE(lines.size(), labels.size());
        for (qsizetype i = 0; i < labels.size(); ++i) {
            for (qsizetype j = 0; j < lines.size(); ++j) {
                if (j == i)
                    continue;
                const int samples = std::max(2, int(lines[j].length()));
                for (int k = 0; k <= samples; ++k)
                    QVERIFY2(!labels[i].containsPoint(lines[j].pointAt(double(k) / samples), Qt::OddEvenFill),
                             qPrintable(QStringLiteral("label %1 (%2) lies on line %3 (%4)")
                                            .arg(i)
                                            .arg(window.rooflineView()->data().ceilings[size_t(i)].label)
                                            .arg(j)
                                            .arg(window.rooflineView()->data().ceilings[size_t(j)].label)));
            }
        }

        // Verify history: the figures come first (issue 45: verdict, speedup and interval, n,
        // protocol, both times); Who follows them, its first words whole in its column (cut at its
        // end, whole in the tooltip), not "agent:" at a column's edge.
        QTableView *history = window.historyView()->table();
        QVERIFY(window.historyModel()->rowCount() > 0);
        const int who = VerifyHistoryModel::WhoColumn;
        const QString whoText = history->model()->index(0, who).data().toString();
        QVERIFY(whoText.size() > 30);
        const int speedupLeft =
            history->horizontalHeader()->sectionViewportPosition(VerifyHistoryModel::SpeedupColumn);
        QVERIFY(speedupLeft >= 0 && speedupLeft + history->columnWidth(VerifyHistoryModel::SpeedupColumn) <=
                                        history->viewport()->width());
        const QString whoVisible = history->fontMetrics().elidedText(whoText, history->textElideMode(),
                                                                     history->columnWidth(who) - 2 * margin);
        QVERIFY2(whoVisible.startsWith(QLatin1String("agent: Claude")), qPrintable(whoVisible));
        QVERIFY(history->textElideMode() == Qt::ElideRight);
        QVERIFY(history->model()->index(0, who).data(Qt::ToolTipRole).toString().contains(whoText));

        // Verify history: the title and the axis titles fit the chart.
        QChart *chart = window.historyView()->chartView()->chart();
        QVERIFY(QFontMetrics(chart->titleFont()).horizontalAdvance(chart->title()) <=
                chart->size().width() - chart->margins().left() - chart->margins().right());
        for (QAbstractAxis *axis : chart->axes()) {
            const int advance = QFontMetrics(axis->titleFont()).horizontalAdvance(axis->titleText());
            const double room =
                axis->orientation() == Qt::Vertical ? chart->plotArea().height() : chart->plotArea().width();
            QVERIFY2(advance <= room, qPrintable(axis->titleText()));
        }

        // Each demo report on its own (Time shown, less room than the comparison) shows every
        // kernel's short name whole too: the torch trace's seventeen ATen kernels included.
        const size_t reports = demoWorkspace().kernelTables.size();
        QVERIFY(reports >= 3);
        for (int report = 0; report < int(reports); ++report) {
            window.kernelView()->showReports(report, -1);
            const int room = table->columnWidth(KernelTableModel::NameColumn) - 2 * margin;
            for (int row = 0; row < table->model()->rowCount(); ++row) {
                const QString shown =
                    table->model()->index(row, KernelTableModel::NameColumn).data().toString();
                QVERIFY2(table->fontMetrics().elidedText(shown, table->textElideMode(), room) == shown,
                         qPrintable(QStringLiteral("%1: '%2' is cut")
                                        .arg(window.kernelView()->model()->table().path, shown)));
            }
        }
    }

    void withoutADisplayTheBinarySaysWhatToDo()
    {
        const QStringList none = withoutDisplay().toStringList();
        const QString problem = WindowOptions::displayProblem(none);
        for (const char *named : {"--demo --screenshot DIR", "xvfb-run", "hotkernel mcp --headless"})
            QVERIFY2(problem.contains(QLatin1String(named)), named);
        QVERIFY(WindowOptions::displayProblem(none + QStringList{QStringLiteral("DISPLAY=:0")}).isEmpty());
        QVERIFY(WindowOptions::displayProblem(none + QStringList{QStringLiteral("QT_QPA_PLATFORM=offscreen")})
                    .isEmpty());
        QVERIFY(!WindowOptions::displayProblem(none + QStringList{QStringLiteral("QT_QPA_PLATFORM=xcb")})
                     .isEmpty());

        QProcess process;
        process.setProcessEnvironment(withoutDisplay());
        process.start(QStringLiteral(HOTKERNEL_BINARY), {QStringLiteral("--demo")});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 2); // not Qt's abort (134)
        QVERIFY(process.readAllStandardError().contains("xvfb-run"));
    }

    void demoScreenshotsShowEveryPaneInBothThemes()
    {
        // No --theme: the pictures come in light and in dark, each theme's every pane.
        WindowOptions plain = WindowOptions::parse({QStringLiteral("--screenshot"), QStringLiteral("x")});
        QCOMPARE(plain.screenshotThemes(), QStringList({QStringLiteral("light"), QStringLiteral("dark")}));
        WindowOptions dark = WindowOptions::parse({QStringLiteral("--theme"), QStringLiteral("dark")});
        QCOMPARE(dark.screenshotThemes(), QStringList{QStringLiteral("dark")});

        QTemporaryDir dir;
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(HOTKERNEL_BINARY),
                      {QStringLiteral("--demo"), QStringLiteral("--screenshot"),
                       dir.filePath(QStringLiteral("shots"))});
        QVERIFY(process.waitForFinished(180000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        const QStringList panes{QStringLiteral("window"),         QStringLiteral("window-1280x720"),
                                QStringLiteral("targets"),        QStringLiteral("kernels"),
                                QStringLiteral("sass"),           QStringLiteral("source"),
                                QStringLiteral("roofline"),       QStringLiteral("history"),
                                QStringLiteral("feed"),           QStringLiteral("dialog-verify"),
                                QStringLiteral("dialog-details"), QStringLiteral("dialog-details-json")};
        for (const QString &theme : {QStringLiteral("light"), QStringLiteral("dark")}) {
            for (const QString &pane : panes) {
                const QString file = dir.filePath(QStringLiteral("shots/%1-%2.png").arg(pane, theme));
                const double share = nonBackgroundShare(file);
                QVERIFY2(share >= 0.05, qPrintable(QStringLiteral("%1: %2").arg(file).arg(share)));
            }
            // The details dialog twice: its Text tab, then its JSON tab in front.
            QVERIFY(QImage(dir.filePath(QStringLiteral("shots/dialog-details-%1.png").arg(theme))) !=
                    QImage(dir.filePath(QStringLiteral("shots/dialog-details-json-%1.png").arg(theme))));
        }
        // Those pictures and no others.
        QStringList expected;
        for (const QString &pane : panes)
            expected << pane + QStringLiteral("-dark.png") << pane + QStringLiteral("-light.png");
        expected.sort();
        QCOMPARE(QDir(dir.filePath(QStringLiteral("shots"))).entryList(QDir::Files, QDir::Name), expected);
        // The dark pictures are dark: every pane's mean lightness below the light one's.
        for (const QString &pane : panes) {
            const double light = meanLightness(dir.filePath(QStringLiteral("shots/%1-light.png").arg(pane)));
            const double darkMean =
                meanLightness(dir.filePath(QStringLiteral("shots/%1-dark.png").arg(pane)));
            QVERIFY2(darkMean + 0.2 < light,
                     qPrintable(QStringLiteral("%1: dark %2, light %3").arg(pane).arg(darkMean).arg(light)));
        }
    }
};

QTEST_MAIN(TestWindow)
#include "tst_window.moc"
