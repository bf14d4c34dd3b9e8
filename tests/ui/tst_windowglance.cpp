// SPDX-License-Identifier: Apache-2.0
// What issue 45 asks of the window, each seen by a test: the history gives every verify's speedup
// with its 99% interval, the feed its outcome and the running job's step, the kernel table a pinned
// name column, details and totals, SASS "hot k of N" and stall reasons in words, the roofline the
// selected kernel's numbers; the window fits 1280x720 and has keys. Last, on the demo at 1600x1000
// and at 1280x720: the four answers in visible, unclipped widgets, without scrolling or hovering.
#include "agentfeedmodel.h"
#include "agentfeedview.h"
#include "faketools.h"
#include "inspect/leadingkernel.h"
#include "kerneltablemodel.h"
#include "kerneltableview.h"
#include "mainwindow.h"
#include "rooflinechartview.h"
#include "sassmodel.h"
#include "sassview.h"
#include "testlimits.h"
#include "tools/builtintools.h"
#include "verifyhistorymodel.h"
#include "verifyhistoryview.h"
#include "windowoptions.h"
#include "workspace/workspace.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

using namespace hotkernel;

namespace {

Workspace demoWorkspace()
{
    Workspace w = Workspace::load(QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/demo"));
    w.loadCalibration();
    return w;
}

// A verify result as verify writes it (docs/verify-result.md), with test figures.
Json verifyResult(const char *verdict, Json speedup, Json ci99, double baselineMs, double candidateMs, int n)
{
    return Json{{"verdict", verdict},
                {"reason", std::string("test: ") + verdict},
                {"target", "t"},
                {"speedup", speedup},
                {"speedup_ci99", ci99},
                {"rule", "welch"},
                {"mode", "warm"},
                {"n", n},
                {"baseline_stats", {{"n", n}, {"mean_ms", baselineMs}, {"std_ms", 0.001}}},
                {"candidate_stats", {{"n", n}, {"mean_ms", candidateMs}, {"std_ms", 0.002}}},
                {"finished_at", "2026-12-02T10:00:09Z"}};
}

// Shown, inside every ancestor, not covered: the whole of w is on screen.
bool wholeOnScreen(const QWidget *w)
{
    return w->isVisible() && !w->rect().isEmpty() && w->visibleRegion() == QRegion(w->rect());
}

// A label whose text is all there: whole on screen, and as tall (wrapped) or as wide as it needs.
bool labelReadsWhole(const QLabel *label)
{
    if (!wholeOnScreen(label))
        return false;
    if (label->wordWrap())
        return label->heightForWidth(label->width()) <= label->height();
    return label->sizeHint().width() <= label->width();
}

// A table cell's text whole: wide enough for it (not elided), and the part of the cell it takes
// inside the viewport, which is on screen (no scrolling).
bool cellReadsWhole(const QTableView *table, const QModelIndex &index)
{
    const QRect cell = table->visualRect(index);
    const int margin = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
    const int needed = table->fontMetrics().horizontalAdvance(index.data().toString()) + margin;
    const QRect text(cell.left(), cell.top(), std::min(cell.width(), needed), cell.height());
    return wholeOnScreen(table->viewport()) && table->viewport()->rect().contains(text) &&
           needed <= cell.width();
}

QString plain(const QString &html)
{
    QString text = html;
    text.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return text.replace(QStringLiteral("&gt;"), QStringLiteral(">"))
        .replace(QStringLiteral("&lt;"), QStringLiteral("<"))
        .replace(QStringLiteral("&amp;"), QStringLiteral("&"));
}

} // namespace

class TestWindowGlance : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("hotkernel-tests"));
        QStandardPaths::setTestModeEnabled(true);
    }

    void historyGivesEveryVerdictItsIntervalOrItsReason()
    {
        const auto slower =
            VerifyRecord::fromJson(verifyResult("slower", 0.7123, {0.6512, 0.7834}, 1.0, 1.404, 7));
        QVERIFY(slower);
        QCOMPARE(VerifyHistoryModel::speedupText(*slower), QStringLiteral("0.71x [0.65, 0.78]"));
        QCOMPARE(VerifyHistoryModel::outcomeText(*slower),
                 QStringLiteral("slower 0.71x [0.65, 0.78] (99%, n 7)"));
        // A result from before verify gave slower verdicts a speedup: the means give it.
        const auto older = VerifyRecord::fromJson(verifyResult("slower", nullptr, {0.49, 0.51}, 1.0, 2.0, 5));
        QVERIFY(older && older->speedup);
        QCOMPARE(*older->speedup, 0.5);
        // A close call gets the decimals that tell its ends apart.
        const auto close =
            VerifyRecord::fromJson(verifyResult("inconclusive", 1.0004, {0.9989, 1.0021}, 1, 1, 5));
        QCOMPARE(VerifyHistoryModel::speedupText(*close), QStringLiteral("1.0004x [0.9989, 1.0021]"));
        // Incorrect: its reason, no zeros.
        const auto incorrect =
            VerifyRecord::fromJson(verifyResult("incorrect", nullptr, nullptr, 1.0, 0.0, 0));
        QVERIFY(incorrect && !incorrect->speedup);
        // Recorded later, the row keeps the verify's own time.
        Json recordedJson = verifyResult("faster", 2.0, {1.9, 2.1}, 2.0, 1.0, 7);
        recordedJson["recorded_at"] = "2026-12-05T08:00:00Z";
        const auto recorded = VerifyRecord::fromJson(recordedJson);
        QCOMPARE(recorded->time, QDateTime(QDate(2026, 12, 2), QTime(10, 0, 9), Qt::UTC));

        VerifyHistoryModel model;
        model.setRecords({*slower, *incorrect});
        model.setTarget(QStringLiteral("t"));
        QCOMPARE(model.index(0, VerifyHistoryModel::SpeedupColumn).data().toString(),
                 QStringLiteral("0.71x [0.65, 0.78]"));
        QCOMPARE(model.index(0, VerifyHistoryModel::VerdictColumn)
                     .data(VerifyHistoryModel::VerdictRole)
                     .toString(),
                 QStringLiteral("slower"));
        QCOMPARE(model.index(0, VerifyHistoryModel::NColumn).data().toInt(), 7);
        QCOMPARE(model.index(0, VerifyHistoryModel::ProtocolColumn).data().toString(),
                 QStringLiteral("welch, warm"));
        // Microseconds, as record and the leaderboard write them.
        QCOMPARE(model.index(0, VerifyHistoryModel::BaselineColumn).data().toString(),
                 QStringLiteral("1000.00 ± 1.00"));
        QVERIFY(model.headerData(VerifyHistoryModel::BaselineColumn, Qt::Horizontal)
                    .toString()
                    .contains(QLatin1String("us")));
        QVERIFY(model.headerData(VerifyHistoryModel::BaselineColumn, Qt::Horizontal)
                    .toString()
                    .contains(QStringLiteral("±")));
        QCOMPARE(model.index(1, VerifyHistoryModel::SpeedupColumn).data().toString(),
                 QStringLiteral("incorrect: test: incorrect"));
        QCOMPARE(model.index(1, VerifyHistoryModel::CandidateColumn).data().toString(), QStringLiteral("-"));

        // The chart: a lone 0.71x keeps the baseline's 1x in range, and draws its interval.
        VerifyHistoryModel lone;
        lone.setRecords({*slower});
        lone.setTarget(QStringLiteral("t"));
        VerifyHistoryView view(&lone);
        view.resize(900, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.speedupRange().first <= 0.65 && view.speedupRange().second >= 1.0);
        bool interval = false;
        for (QAbstractSeries *s : view.chartView()->chart()->series()) {
            auto *line = qobject_cast<QLineSeries *>(s);
            if (line && line->count() == 2 && line->at(0).y() == 0.6512 && line->at(1).y() == 0.7834)
                interval = true;
        }
        QVERIFY(interval);
        QVERIFY(labelReadsWhole(view.latestLabel()));
        QCOMPARE(plain(view.latestLabel()->text()),
                 QStringLiteral("Latest verify: slower 0.71x [0.65, 0.78] (99%, n 7), welch, warm"));
    }

    void feedShowsOutcomeStepAndCancelsTheRunningJob()
    {
        // Outcomes in a few words.
        QCOMPARE(AgentFeedModel::outcome(
                     true, {}, QStringLiteral("ncu is not installed: install Nsight Compute\nmore")),
                 QStringLiteral("ncu is not installed: install Nsight Compute"));
        const Json profile{{"kernels", Json::array({{{"name", "void at::native::reduce_kernel<512, 1>(int)"},
                                                     {"share", 0.62}}})}};
        QCOMPARE(AgentFeedModel::outcome(false, *LeadingKernel::fromJson(profile), QString()),
                 QStringLiteral("top: reduce_kernel<…> 62%"));

        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        test::installFakeVerify(session);
        AgentFeedModel model(&session);
        AgentFeedView view(&session, &model);
        view.resize(660, 240); // the feed dock at 1280x720
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        Job *done =
            session.start(QStringLiteral("verify"), Json{{"n", 1}, {"pause_ms", 1}}, QStringLiteral("agent"));
        QTRY_VERIFY_WITH_TIMEOUT(done->state() != Job::State::Running, test::kEventLimitMs);
        const QModelIndex outcome = model.index(0, AgentFeedModel::ResultColumn);
        QCOMPARE(outcome.data().toString(), QStringLiteral("faster 2.00x (n 1)"));
        QVERIFY2(cellReadsWhole(view.table(), outcome), "the outcome is on screen without scrolling");
        // A running job: its step in words, and Cancel reaches it without selecting it.
        Job *running = session.start(QStringLiteral("verify"), Json{{"n", 3}, {"pause_ms", 60000}},
                                     QStringLiteral("agent"));
        QTRY_COMPARE_WITH_TIMEOUT(model.index(1, AgentFeedModel::ProgressColumn).data().toString(),
                                  QStringLiteral("pair 1 of 3 · 0%"), test::kEventLimitMs);
        QVERIFY(cellReadsWhole(view.table(), model.index(1, AgentFeedModel::ProgressColumn)));
        view.table()->selectRow(0); // a finished row selected
        QVERIFY(view.cancelButton()->isEnabled());
        QCOMPARE(view.cancelButton()->text(), QStringLiteral("Cancel verify"));
        view.cancelButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(running->state(), Job::State::Cancelled, test::kEventLimitMs);
        QTRY_VERIFY(!view.cancelButton()->isEnabled());
        // Earlier sessions' rows keep the text colour (grey on black was unreadable in dark).
        RunSummary old;
        old.tool = QStringLiteral("bench");
        old.state = QStringLiteral("finished");
        old.summary = QStringLiteral("459.14 ± 2.00 us (n 7)");
        model.setReloadedRuns({old});
        QVERIFY(!model.index(0, AgentFeedModel::ToolColumn).data(Qt::ForegroundRole).isValid());
    }

    void kernelTablePinsNamesAndSaysTotalsAndHints()
    {
        const Workspace w = demoWorkspace();
        KernelTableView view;
        view.setTables(w.kernelTables);
        int baseline = -1, candidate = -1;
        for (int i = 0; i < int(w.kernelTables.size()); ++i) {
            const QString file = w.kernelTables[size_t(i)].path;
            if (file.contains(QLatin1String("rmsnorm_baseline")) && baseline < 0)
                baseline = i;
            if (file.contains(QLatin1String("rmsnorm_candidate-20261202-134714")))
                candidate = i;
        }
        QVERIFY(baseline >= 0 && candidate >= 0);
        view.showReports(candidate, baseline);
        view.resize(560, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // Totals of a comparison, before -> after.
        QVERIFY(labelReadsWhole(view.totalsLabel()) || view.totalsLabel()->isVisible());
        const QString totals = plain(view.totalsLabel()->text());
        QVERIFY2(totals.contains(QLatin1String("before")) && totals.contains(QStringLiteral("→ after")),
                 qPrintable(totals));
        // Scrolled to the right end: the names stay, pinned over the left edge.
        view.table()->horizontalScrollBar()->setValue(view.table()->horizontalScrollBar()->maximum());
        QVERIFY(view.pinnedNames()->isVisible());
        QCOMPARE(view.pinnedNames()->columnWidth(KernelTableModel::NameColumn),
                 view.table()->columnWidth(KernelTableModel::NameColumn));
        QCOMPARE(view.pinnedNames()->model(), view.table()->model());
        QVERIFY(view.pinnedNames()->geometry().left() <= view.table()->frameWidth());
        // The selected kernel's hint, whole, under the table.
        QVERIFY(view.selectKernel(QStringLiteral("_rmsnorm_kernel")));
        const QString details = plain(view.detailsLabel()->text());
        const QModelIndex row = view.table()->currentIndex();
        const QString hint = row.siblingAtColumn(KernelTableModel::HintColumn).data().toString();
        QVERIFY(!hint.isEmpty());
        QVERIFY2(details.contains(hint), qPrintable(details));
        QVERIFY(labelReadsWhole(view.detailsLabel()));
    }

    void sassSaysHotKOfNAndStallsInWords()
    {
        QCOMPARE(SassModel::stallWords(QStringLiteral("stall_long_sb")),
                 QStringLiteral("waiting on global memory"));
        QCOMPARE(SassModel::stallWords(QStringLiteral("long_scoreboard")),
                 QStringLiteral("waiting on global memory"));
        QCOMPARE(SassModel::stallWords(QStringLiteral("stall_unheard_of")), QStringLiteral("unheard_of"));
        const Workspace w = demoWorkspace();
        const SassFunction *f = w.functionFor(QStringLiteral("_rmsnorm_kernel"));
        QVERIFY(f);
        SassView view;
        view.resize(560, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setFunction(*f);
        const int hot = int(view.model()->hotRows().size());
        QVERIFY(hot >= 2);
        const int k = view.model()->hotIndex(view.currentRow());
        QVERIFY(k >= 1);
        const QString first = plain(view.hotLabel()->text());
        QVERIFY2(first.startsWith(QStringLiteral("Hot line %1 of %2: ").arg(k).arg(hot)), qPrintable(first));
        QVERIFY2(first.contains(QLatin1String("% of the samples, top stall: ")), qPrintable(first));
        QVERIFY(labelReadsWhole(view.hotLabel()));
        view.nextHot(true);
        QVERIFY(plain(view.hotLabel()->text())
                    .startsWith(QStringLiteral("Hot line %1 of %2").arg(k % hot + 1).arg(hot)));
        // Each line's share of the samples; ncu's names stay in the tooltip.
        const int row = view.currentRow();
        QVERIFY(view.model()
                    ->index(row, SassModel::StallSamplesColumn)
                    .data()
                    .toString()
                    .endsWith(QLatin1Char('%')));
        const QString tip =
            view.model()->index(row, SassModel::TopStallColumn).data(Qt::ToolTipRole).toString();
        const QString ncuName = SassModel::topStallReason(view.model()->function().instructions[size_t(row)]);
        QVERIFY(!ncuName.isEmpty());
        QVERIFY2(tip.contains(QStringLiteral("(%1)").arg(ncuName)), qPrintable(tip));
        QVERIFY2(tip.contains(SassModel::stallWords(ncuName)), qPrintable(tip));
        // The demo's two builds of its kernel side by side.
        QVERIFY(std::count_if(w.functions.begin(), w.functions.end(), [](const SassFunction &g) {
                    return g.name == QLatin1String("_rmsnorm_kernel");
                }) >= 2);
    }

    void rooflineShowsTheSelectedKernelsNumbers()
    {
        const Workspace w = demoWorkspace();
        RooflineChartView view;
        view.resize(600, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const KernelTable *after = nullptr;
        const KernelTable *before = nullptr;
        for (const KernelTable &t : w.kernelTables) {
            if (t.path.contains(QLatin1String("rmsnorm_candidate-20261202-134714.raw")))
                after = &t;
            if (t.path.contains(QLatin1String("rmsnorm_baseline")) && t.path.contains(QLatin1String("raw")))
                before = &t;
        }
        QVERIFY(after && before);
        const RooflineData data = w.roofline(w.records, after, QStringLiteral("bf16"), before);
        // Each kernel once per side: no key twice on one side.
        QSet<QString> seen;
        int baselines = 0;
        for (const RooflinePoint &p : data.points) {
            QVERIFY2(!seen.contains(p.kind + p.key), qPrintable(p.key));
            seen.insert(p.kind + p.key);
            baselines += p.kind == QLatin1String("baseline") ? 1 : 0;
        }
        QVERIFY(baselines >= 2); // the removed kernels are baseline points
        view.setData(data);
        view.selectKey(QStringLiteral("_rmsnorm_kernel"));
        const QString text = plain(view.selectedLabel()->text());
        QVERIFY2(
            QRegularExpression(
                QStringLiteral("^_rmsnorm_kernel \\(candidate\\): [0-9.e+-]+ FLOP/B, [0-9.]+ [TG]?FLOP/s, "
                               "[0-9]+ GB/s: [0-9]+% of the .+ roof$"))
                .match(text)
                .hasMatch(),
            qPrintable(text));
        QTRY_VERIFY(labelReadsWhole(view.selectedLabel())); // once the layout gave it its height
        // The hover callout: a box clear of every ceiling label.
        // The hover callout of the selected kernel: a box on the plot (its background hides the
        // lines under it), placed off the ceiling labels where a corner around the point allows.
        for (const RooflinePoint &p : view.data().points) {
            if (p.key != QLatin1String("_rmsnorm_kernel"))
                continue;
            view.showCalloutFor(p);
            const QRectF box = view.calloutShape();
            QVERIFY(!box.isEmpty());
            QVERIFY(view.chart()->mapToScene(view.chart()->rect()).boundingRect().contains(box));
        }
    }

    void windowFitsSmallScreensAndHasKeys()
    {
        QCOMPARE(MainWindow::defaultSizeFor(QSize(1280, 680)), QSize(1280, 680));
        QCOMPARE(MainWindow::defaultSizeFor(QSize(2560, 1400)), QSize(1600, 1000));
        QSettings().remove(QStringLiteral("window"));
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        MainWindow window(&session);
        QVERIFY(window.minimumSizeHint().width() <= 1280 && window.minimumSizeHint().height() <= 720);
        // Every toolbar action has a key, and no two share one.
        QSet<QString> keys;
        for (QAction *a : window.findChild<QToolBar *>(QStringLiteral("sessionToolBar"))->actions()) {
            if (a->isSeparator())
                continue;
            QVERIFY2(!a->shortcut().isEmpty(), qPrintable(a->text()));
            QVERIFY2(!keys.contains(a->shortcut().toString()), qPrintable(a->text()));
            keys.insert(a->shortcut().toString());
        }
        // A key per pane, and Tab leaves every table.
        for (const QString &pane :
             {QStringLiteral("targets"), QStringLiteral("kernels"), QStringLiteral("sass"),
              QStringLiteral("history"), QStringLiteral("feed"), QStringLiteral("roofline")}) {
            auto *go = window.findChild<QAction *>(QStringLiteral("actionGoTo_") + pane);
            QVERIFY2(go && !go->shortcut().isEmpty(), qPrintable(pane));
        }
        for (QAbstractItemView *v : window.findChildren<QAbstractItemView *>())
            QVERIFY2(!v->tabKeyNavigation(), qPrintable(v->objectName()));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.findChild<QAction *>(QStringLiteral("actionGoTo_kernels"))->trigger();
        QTRY_VERIFY(window.dock(QStringLiteral("kernels"))->isAncestorOf(QApplication::focusWidget()));
        // The window's options in --help's text, and Qt's own taken, not refused.
        QVERIFY(WindowOptions::help().contains(QLatin1String("--theme")));
        QVERIFY(WindowOptions::help().contains(QLatin1String("--screenshot")));
        QVERIFY(WindowOptions::isQtArgument(QStringLiteral("-style")));
        const WindowOptions styled = WindowOptions::parse(
            {QStringLiteral("-style"), QStringLiteral("fusion"), QStringLiteral("--demo")});
        QVERIFY2(styled.error.isEmpty(), qPrintable(styled.error));
        QVERIFY(styled.demo);
    }

    void glanceAtTheDemo_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1600x1000") << QSize(1600, 1000);
        QTest::newRow("1280x720") << QSize(1280, 720);
    }

    void glanceAtTheDemo()
    {
        // The demo as it opens at each size, an agent's verify running: the four answers read
        // whole in widgets on screen, without scrolling or hovering.
        QFETCH(QSize, size);
        QSettings().remove(QStringLiteral("window"));
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        test::installFakeVerify(session);
        MainWindow window(&session);
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(10000));
        window.resize(size);
        window.resetLayout();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.size(), size);
        window.setWorkspace(demoWorkspace());
        Job *job = session.start(QStringLiteral("verify"), Json{{"n", 5}, {"pause_ms", 60000}},
                                 QStringLiteral("agent"));
        QTRY_VERIFY_WITH_TIMEOUT(job->progressMessage() == QLatin1String("pair 1 of 5"), test::kEventLimitMs);
        QTest::qWait(50); // one round of layout after the row came in

        // What is hot and why: the top kernel is the one shown, with its hot line's stall in words.
        const QString top = window.kernelView()
                                ->table()
                                ->model()
                                ->index(0, 0)
                                .data(KernelTableModel::KernelNameRole)
                                .toString();
        QCOMPARE(top, QStringLiteral("_rmsnorm_kernel"));
        // The name column is the pinned one drawn over the table's left edge.
        QVERIFY(
            cellReadsWhole(window.kernelView()->pinnedNames(),
                           window.kernelView()->table()->model()->index(0, KernelTableModel::NameColumn)));
        QLabel *hot = window.sassView()->hotLabel();
        QVERIFY2(labelReadsWhole(hot), qPrintable(hot->text()));
        const QString hotText = plain(hot->text());
        const QString stall = SassModel::stallWords(SassModel::topStallReason(
            window.sassView()->model()->function().instructions[size_t(window.sassView()->currentRow())]));
        QVERIFY2(hotText.contains(QLatin1String("top stall: ") + stall), qPrintable(hotText));
        QVERIFY(!stall.startsWith(QLatin1String("stall_")));
        // Its share of which roof.
        QLabel *roof = window.rooflineView()->selectedLabel();
        QVERIFY2(labelReadsWhole(roof), qPrintable(roof->text()));
        QVERIFY2(plain(roof->text()).contains(QRegularExpression(QStringLiteral("[0-9]+% of the .+ roof"))),
                 qPrintable(roof->text()));
        QVERIFY(plain(roof->text()).startsWith(QLatin1String("_rmsnorm_kernel")));
        // Faster, by how much, how sure: the last verify with its interval.
        QLabel *latest = window.historyView()->latestLabel();
        QVERIFY2(labelReadsWhole(latest), qPrintable(latest->text()));
        QVERIFY2(plain(latest->text()).contains(QLatin1String("faster 12.90x [12.84, 12.97] (99%, n 7)")),
                 qPrintable(latest->text()));
        // What the agent is doing: the running job's step, in its row, on screen.
        const int row = window.feedModel()->latestRunningRow();
        QVERIFY(row >= 0);
        const QModelIndex step = window.feedModel()->index(row, AgentFeedModel::ProgressColumn);
        QVERIFY(step.data().toString().startsWith(QLatin1String("pair 1 of 5")));
        QVERIFY2(cellReadsWhole(window.feedView()->table(), step), qPrintable(step.data().toString()));
        session.cancel(job->id());
        QTRY_VERIFY_WITH_TIMEOUT(job->state() != Job::State::Running, test::kEventLimitMs);
    }
};

QTEST_MAIN(TestWindowGlance)
#include "tst_windowglance.moc"
