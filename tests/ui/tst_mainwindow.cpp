// SPDX-License-Identifier: Apache-2.0
// The window over a real Session (offscreen): kernel selection drives the SASS view and the
// roofline, a verify started from the window shows progress and lands in the history, Cancel
// cancels, an agent's job shows in the feed, the saved session comes back, screenshots have content.
#include "agentfeedmodel.h"
#include "agentfeedview.h"
#include "apptheme.h"
#include "faketools.h"
#include "hostselector.h"
#include "inspect/kernelreportparser.h"
#include "inspect/sassparser.h"
#include "kerneltableview.h"
#include "mainwindow.h"
#include "remote/remotehost.h"
#include "resultdetailsdialog.h"
#include "rooflinechartview.h"
#include "sassmodel.h"
#include "sassview.h"
#include "schemaformdialog.h"
#include "session/sessionstore.h"
#include "sourcetextview.h"
#include "testlimits.h"
#include "tools/builtintools.h"
#include "verifyhistorymodel.h"
#include "verifyhistoryview.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {

SassFunction realFunction()
{
    QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/ui/rmsnorm.cuobjdump.sass"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    auto functions = SassParser::parseSass(f.readAll());
    return functions.empty() ? SassFunction{} : functions.front();
}

KernelTable inspectFixture(const char *name)
{
    QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return KernelReportParser::parse(f.readAll(), f.fileName());
}

int distinctColours(const QString &path)
{
    const QImage image(path);
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    }
    return int(colours.size());
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("hotkernel-tests"));
        QStandardPaths::setTestModeEnabled(true);
    }

    void kernelSelectionDrivesSassAndRoofline()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        MainWindow window(&session);
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(hotkernel::test::kEventLimitMs));

        Workspace w;
        w.root = dir.path();
        const SassFunction f = realFunction();
        QVERIFY(!f.instructions.empty());
        w.functions = {f};
        KernelTable table;
        KernelStat k;
        k.name = f.name; // the kernel the listing belongs to
        k.calls = 1;
        k.avgNs = k.totalNs = 1000;
        k.share = 0.8;
        KernelStat other = k;
        other.name = QStringLiteral("other_kernel");
        other.share = 0.2;
        table.kernels = {k, other};
        w.kernelTables = {table};
        window.setWorkspace(w);
        window.addRooflinePoints({RooflinePoint{k.name, QStringLiteral("kernel"), 2.0, 1e12, k.name},
                                  RooflinePoint{other.name, QStringLiteral("kernel"), 4.0, 2e12, other.name},
                                  // Qt Charts would blank the whole series for this one.
                                  RooflinePoint{QStringLiteral("bad"), QStringLiteral("kernel"), 0.0, 1e12,
                                                QStringLiteral("bad")}});
        QCOMPARE(window.rooflineView()->rejected().size(), 1);

        QVERIFY(window.kernelView()->selectKernel(other.name));
        QCOMPARE(window.rooflineView()->selectedKey(), other.name);
        // No listing for it: the one shown stays (a pane emptied by a click helps nobody, issue 45).
        QVERIFY(window.sassView()->model()->rowCount() > 0);

        QVERIFY(window.kernelView()->selectKernel(k.name));
        QCOMPARE(window.sassView()->model()->function().name, f.name);
        QCOMPARE(window.sassView()->model()->rowCount(), int(f.instructions.size()));
        QCOMPARE(window.rooflineView()->selectedKey(), k.name);

        // And back: a point picked on the chart selects its kernel.
        Q_EMIT window.rooflineView()->pointSelected(other.name);
        QCOMPARE(window.kernelView()->selectedKernel(), other.name);
    }

    void profileKernelPointsSyncWithTable()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        MainWindow window(&session);
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(hotkernel::test::kEventLimitMs));

        // One report with two real kernels (ncu raw pages of an H200, --set full), and one
        // (default sections) whose kernels have no FLOP counts.
        KernelTable full = inspectFixture("triton-rmsnorm.ncu-raw.csv");
        const KernelTable templated = inspectFixture("templated.ncu-raw.csv");
        QCOMPARE(full.kernels.size(), size_t(1));
        QCOMPARE(templated.kernels.size(), size_t(1));
        full.kernels.push_back(templated.kernels.front());
        const QString rmsnorm = full.kernels[0].name;
        const QString scaledAdd = full.kernels[1].name;
        Workspace w;
        w.root = dir.path();
        w.card = QStringLiteral("NVIDIA H200");
        w.kernelTables = {full, inspectFixture("eager.ncu-raw.csv")};
        window.setWorkspace(w);

        QStringList keys;
        for (const RooflinePoint &p : window.rooflineView()->data().points) {
            if (p.kind == QLatin1String("kernel"))
                keys.append(p.key);
        }
        QCOMPARE(keys.size(), 2);
        QVERIFY(keys.contains(rmsnorm) && keys.contains(scaledAdd));

        // Table -> chart, and chart -> table, by kernel name.
        QVERIFY(window.kernelView()->selectKernel(scaledAdd));
        QCOMPARE(window.rooflineView()->selectedKey(), scaledAdd);
        Q_EMIT window.rooflineView()->pointSelected(rmsnorm);
        QCOMPARE(window.kernelView()->selectedKernel(), rmsnorm);
        QCOMPARE(window.rooflineView()->selectedKey(), rmsnorm);

        // Another report shown: its kernels have no point, and the chart says why.
        window.kernelView()->showReports(1);
        for (const RooflinePoint &p : window.rooflineView()->data().points)
            QVERIFY(p.kind != QLatin1String("kernel"));
        QVERIFY2(
            window.rooflineView()->statusText().contains(QLatin1String("9 of 9 kernels without a point")),
            qPrintable(window.rooflineView()->statusText()));
    }

    void sassViewSearchJumpDiffTheme()
    {
        SassView view;
        const SassFunction f = realFunction();
        view.setFunction(f);
        const int row = view.findNext(QStringLiteral("BAR.SYNC"));
        QVERIFY(row > 0);
        QCOMPARE(view.table()->currentIndex().row(), row);
        QVERIFY(view.jumpToAddress(0x10));
        QCOMPARE(view.table()->currentIndex().data(SassModel::AddressRole).toULongLong(), 0x10u);
        SassFunction candidate = f;
        candidate.instructions.erase(candidate.instructions.begin() + 3);
        view.setDiff(f, candidate);
        QVERIFY(view.isDiffShown());
        // The highlighting follows the palette: a coloured token (a register) changes colour.
        const auto colourOf = [&view] {
            for (const auto &range : view.model()->layout(1, view.font())->formats()) {
                if (range.format.foreground().style() != Qt::NoBrush)
                    return range.format.foreground().color();
            }
            return QColor();
        };
        view.setFunction(f);
        const QColor lightColour = colourOf();
        QVERIFY(lightColour.isValid());
        view.setPalette(AppTheme::palette(QStringLiteral("dark")));
        const QColor darkColour = colourOf();
        QVERIFY(darkColour.isValid());
        QVERIFY2(lightColour != darkColour, qPrintable(lightColour.name()));
    }

    void sourceView()
    {
        SourceTextView view;
        view.setSource(QStringLiteral("def f(x):\n    return x\n"), QStringLiteral("t_baseline.py"));
        QCOMPARE(view.definitionName(), QStringLiteral("Python"));
        view.setSource(QStringLiteral(".reg .b32 %r<5>;\n"), QStringLiteral("k.ptx"));
        QCOMPARE(view.definitionName(), QStringLiteral("NVIDIA PTX"));
    }

    void verifyFromWindowShowsProgressAndEndsInHistory()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        test::installFakeVerify(session);
        MainWindow window(&session);
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(hotkernel::test::kEventLimitMs));
        window.historyModel()->setTarget(QStringLiteral("t"));
        // The event loop keeps turning while the verify runs.
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
        ticker.start(10);

        Job *job = window.startVerify(QStringLiteral("t"), 4, 1);
        QVERIFY(job);
        QCOMPARE(job->client(), QStringLiteral("window"));
        QCOMPARE(job->arguments().value("n", 0), 4);
        QCOMPARE(job->arguments().value("warmup", -1), 1);
        AgentFeedModel *feed = window.feedModel();
        const int row = feed->rowForJob(job->id());
        QVERIFY(row >= 0);
        QTRY_VERIFY_WITH_TIMEOUT(feed->index(row, 0).data(AgentFeedModel::ProgressRole).toDouble() > 0.2,
                                 hotkernel::test::kEventLimitMs);
        QVERIFY(feed->index(row, 0).data(AgentFeedModel::RunningRole).toBool());
        QVERIFY(window.jobsLabel()->text().contains(QLatin1String("verify")));
        QTRY_COMPARE_WITH_TIMEOUT(window.historyModel()->rowCount(), 1, hotkernel::test::kEventLimitMs);
        QCOMPARE(window.historyModel()
                     ->index(0, VerifyHistoryModel::VerdictColumn)
                     .data(VerifyHistoryModel::VerdictRole)
                     .toString(),
                 QStringLiteral("faster"));
        QVERIFY(!feed->index(row, 0).data(AgentFeedModel::RunningRole).toBool());
        QVERIFY(window.historyView()->seriesCount() >= 3);
        QVERIFY(ticks > 10);
    }

    void recordOffersTheLastVerifyPrefilled()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        test::installFakeVerify(session);
        MainWindow window(&session);
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(hotkernel::test::kEventLimitMs));
        window.historyModel()->setTarget(QStringLiteral("t"));
        QSettings().setValue(QStringLiteral("record/who"), QStringLiteral("agent: tester"));
        auto *record = window.findChild<QAction *>(QStringLiteral("actionRecord"));
        QVERIFY(record);
        // Nothing verified yet: no dialog, the status bar says what to do.
        record->trigger();
        QVERIFY(window.findChildren<SchemaFormDialog *>().isEmpty());

        QVERIFY(window.startVerify(QStringLiteral("t"), 4, 1));
        QTRY_COMPARE_WITH_TIMEOUT(window.historyModel()->rowCount(), 1, hotkernel::test::kEventLimitMs);
        record->trigger();
        const auto dialogs = window.findChildren<SchemaFormDialog *>();
        QCOMPARE(dialogs.size(), 1);
        const Json arguments = dialogs.front()->arguments();
        QCOMPARE(toQt(arguments.value("who", std::string())), QStringLiteral("agent: tester"));
        QCOMPARE(toQt(arguments.value("target", std::string())), QStringLiteral("t"));
        const QString note = toQt(arguments.value("note", std::string()));
        QVERIFY2(note.contains(QLatin1String("faster")) && note.contains(QLatin1String("2.00x")),
                 qPrintable(note));
        dialogs.front()->close();
    }

    void fileMenuOpensReportsAndDirectoriesAndRemembersThem()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        MainWindow window(&session);
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(hotkernel::test::kEventLimitMs));
        QSettings().remove(QStringLiteral("recent"));

        const QString report =
            QFileInfo(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/eager.ncu-raw.csv"))
                .absoluteFilePath();
        window.findChild<QAction *>(QStringLiteral("actionOpenReport"))->trigger();
        auto *reportDialog = window.findChild<QFileDialog *>();
        QVERIFY(reportDialog);
        QVERIFY(reportDialog->isVisible());
        reportDialog->selectFile(report);
        static_cast<QDialog *>(reportDialog)->accept(); // QFileDialog::accept, through the public base
        QVERIFY(loaded.wait(hotkernel::test::kEventLimitMs));
        const auto &tables = window.workspace().kernelTables;
        QVERIFY(std::any_of(tables.begin(), tables.end(), [&report](const KernelTable &t) {
            return QFileInfo(t.path).absoluteFilePath() == report;
        }));

        QTemporaryDir other;
        QSignalSpy opened(&window, &MainWindow::openDirectoryRequested);
        window.findChild<QAction *>(QStringLiteral("actionOpenDirectory"))->trigger();
        QFileDialog *directoryDialog = nullptr;
        QTRY_VERIFY((directoryDialog = [&window]() -> QFileDialog * {
            for (QFileDialog *d : window.findChildren<QFileDialog *>())
                if (d->fileMode() == QFileDialog::Directory)
                    return d;
            return nullptr;
        }()));
        directoryDialog->selectFile(other.path());
        static_cast<QDialog *>(directoryDialog)->accept();
        QCOMPARE(opened.size(), 1);
        QCOMPARE(QFileInfo(opened.front().front().toString()).canonicalFilePath(),
                 QFileInfo(other.path()).canonicalFilePath());

        // Open recent lists both, newest first; picking the report opens it again.
        auto *recent = window.findChild<QMenu *>(QStringLiteral("menuRecent"));
        QVERIFY(recent);
        Q_EMIT recent->aboutToShow();
        QStringList texts;
        for (QAction *a : recent->actions())
            texts.append(a->text());
        QVERIFY2(texts.contains(QStringLiteral("eager.ncu-raw.csv")), qPrintable(texts.join(u'|')));
        QVERIFY2(std::any_of(texts.begin(), texts.end(),
                             [&other](const QString &t) {
                                 return QFileInfo(t).canonicalFilePath() ==
                                        QFileInfo(other.path()).canonicalFilePath();
                             }),
                 qPrintable(texts.join(u'|')));
    }

    void helpShowsAboutTheSkillAndTheDocs()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        MainWindow window(&session);
        window.findChild<QAction *>(QStringLiteral("actionAbout"))->trigger();
        auto *about = window.findChild<QMessageBox *>(QStringLiteral("aboutBox"));
        QVERIFY(about);
        QVERIFY(about->isVisible());
        QVERIFY(about->text().contains(QLatin1String("hotkernel " HOTKERNEL_VERSION)));
        QVERIFY(about->text().contains(QLatin1String("GPL-3.0")));
        about->close();

        window.findChild<QAction *>(QStringLiteral("actionSkill"))->trigger();
        auto dialogs = window.findChildren<ResultDetailsDialog *>();
        QCOMPARE(dialogs.size(), 1);
        QVERIFY2(dialogs.front()->text().contains(QLatin1String("kernel-speedrun")),
                 qPrintable(dialogs.front()->text().left(200)));
        delete dialogs.front();

        auto *docs = window.findChild<QMenu *>(QStringLiteral("menuDocs"));
        QVERIFY(docs);
        QStringList names;
        for (QAction *a : docs->actions())
            names.append(a->text());
        QVERIFY2(names.contains(QStringLiteral("window.md")), qPrintable(names.join(u'|')));
        docs->actions().at(names.indexOf(QStringLiteral("window.md")))->trigger();
        dialogs = window.findChildren<ResultDetailsDialog *>();
        QCOMPARE(dialogs.size(), 1);
        QVERIFY(dialogs.front()->text().contains(QLatin1String("Reset layout")));
    }

    void resetLayoutRestoresTheDefaultDocks()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        QSettings().remove(QStringLiteral("window"));
        MainWindow window(&session);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const auto arrangement = [&window] {
            QStringList parts;
            for (const char *name : {"targets", "kernels", "sass", "source", "roofline", "history", "feed"}) {
                QDockWidget *d = window.dock(QLatin1String(name));
                QStringList tabs;
                for (QDockWidget *t : window.tabifiedDockWidgets(d))
                    tabs.append(t->objectName());
                // Geometry to 10 px: the same arrangement, not the same rounding (a tab behind
                // another has none worth comparing).
                const QRect g = d->visibleRegion().isEmpty() ? QRect() : d->geometry();
                parts.append(QStringLiteral("%1 area %2 floating %3 hidden %4 tabs [%5] at %6,%7 %8x%9")
                                 .arg(d->objectName())
                                 .arg(int(window.dockWidgetArea(d)))
                                 .arg(d->isFloating())
                                 .arg(d->isHidden())
                                 .arg(tabs.join(u','))
                                 .arg(g.x() / 10)
                                 .arg(g.y() / 10)
                                 .arg(g.width() / 10)
                                 .arg(g.height() / 10));
            }
            return parts;
        };
        QTest::qWait(50);
        const QStringList initial = arrangement();
        QVERIFY2(window.tabifiedDockWidgets(window.dock(QStringLiteral("sass")))
                     .contains(window.dock(QStringLiteral("source"))),
                 qPrintable(initial.join(u'\n')));

        window.dock(QStringLiteral("roofline"))->setFloating(true);
        window.dock(QStringLiteral("feed"))->hide();
        window.tabifyDockWidget(window.dock(QStringLiteral("kernels")),
                                window.dock(QStringLiteral("history")));
        window.resizeDocks({window.dock(QStringLiteral("targets"))}, {300}, Qt::Horizontal);
        QTest::qWait(50);
        QVERIFY(arrangement() != initial);

        window.findChild<QAction *>(QStringLiteral("actionResetLayout"))->trigger();
        QTRY_COMPARE(arrangement(), initial);
    }

    void cancelFromFeed()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        test::installFakeVerify(session);
        MainWindow window(&session);
        window.show();
        Job *job = session.start(QStringLiteral("verify"), Json{{"n", 100}, {"pause_ms", 50}},
                                 QStringLiteral("agent"));
        const int row = window.feedModel()->rowForJob(job->id());
        QVERIFY(row >= 0);
        QCOMPARE(window.feedModel()->index(row, 0).data(AgentFeedModel::ClientRole).toString(),
                 QStringLiteral("agent"));
        QTableView *table = window.feedView()->table();
        table->selectionModel()->setCurrentIndex(window.feedModel()->index(row, 0),
                                                 QItemSelectionModel::ClearAndSelect |
                                                     QItemSelectionModel::Rows);
        QVERIFY(window.feedView()->cancelButton()->isEnabled());
        QTest::mouseClick(window.feedView()->cancelButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(job->state(), Job::State::Cancelled, hotkernel::test::kEventLimitMs);
        QTRY_COMPARE(window.feedModel()->index(row, 0).data(AgentFeedModel::StateRole).toString(),
                     QStringLiteral("cancelled"));
        QVERIFY(!window.feedView()->cancelButton()->isEnabled());
    }

    void agentsAttachingAndLeavingAreShown()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        MainWindow window(&session);
        window.setAgentAccess(false, QStringLiteral("another hotkernel workbench already owns it"));
        QVERIFY(window.agentsLabel()->text().contains(QLatin1String("already owns")));
        window.setAgentAccess(true, QStringLiteral("/tmp/hotkernel-test"));
        QCOMPARE(window.agentsLabel()->text(), QStringLiteral("Agents: none attached"));
        const int before = window.feedModel()->rowCount();
        window.agentAttached(QStringLiteral("claude-code"));
        window.agentAttached(QStringLiteral("codex"));
        QCOMPARE(window.agentsLabel()->text(), QStringLiteral("Agents: claude-code, codex"));
        window.agentDetached(QStringLiteral("claude-code"), 2);
        QCOMPARE(window.agentsLabel()->text(), QStringLiteral("Agents: codex"));
        QCOMPARE(window.feedModel()->rowCount(), before + 3);
        const QString last =
            window.feedModel()->index(before + 2, AgentFeedModel::ResultColumn).data().toString();
        QVERIFY2(last.contains(QLatin1String("claude-code disconnected")) &&
                     last.contains(QLatin1String("2 job")),
                 qPrintable(last));
    }

    void hostSelectorMovesTheSession()
    {
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        test::installFakeVerify(session);
        MainWindow window(&session);
        window.show();
        QComboBox *combo = window.hostSelector()->combo();
        QCOMPARE(combo->currentText(), QStringLiteral("local"));
        QVERIFY(!session.remote());

        // A URL hostkernel cannot use: refused with the form to write, the session stays local.
        QVERIFY(!window.changeHost(QStringLiteral("ftp://gpu-box")));
        QVERIFY2(window.statusBar()->currentMessage().contains(QLatin1String("ssh://")),
                 qPrintable(window.statusBar()->currentMessage()));
        QCOMPARE(session.hostDisplay(), QStringLiteral("local"));
        QCOMPARE(combo->currentText(), QStringLiteral("local"));

        // Typed and Enter: the session's workers move there (connecting waits for the next run),
        // the feed says so, and the host is offered next time.
        const QString url = QStringLiteral("ssh://tuner@gpu-box.invalid:2222/scratch/w");
        const int feedRows = window.feedModel()->rowCount();
        combo->lineEdit()->clear();
        QTest::keyClicks(combo->lineEdit(), url);
        QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
        QTRY_VERIFY(session.remote());
        QCOMPARE(session.remote()->url().host, QStringLiteral("gpu-box.invalid"));
        QCOMPARE(session.hostDisplay(), url);
        QCOMPARE(combo->currentText(), url);
        QCOMPARE(window.feedModel()->rowCount(), feedRows + 1);
        QVERIFY(QSettings().value(QStringLiteral("recent/hosts")).toStringList().contains(url));

        // While a job runs the host stays (the selector is disabled, and the session refuses).
        Job *job = session.start(QStringLiteral("verify"), Json{{"n", 100}, {"pause_ms", 50}},
                                 QStringLiteral("agent"));
        QTRY_VERIFY(!combo->isEnabled());
        QVERIFY(!window.changeHost(QStringLiteral("local")));
        QVERIFY2(window.statusBar()->currentMessage().contains(QLatin1String("verify (agent)")),
                 qPrintable(window.statusBar()->currentMessage()));
        QCOMPARE(session.hostDisplay(), url);
        session.cancel(job->id());
        QTRY_VERIFY_WITH_TIMEOUT(combo->isEnabled(), hotkernel::test::kEventLimitMs);

        // Back to local, picked from the list.
        const int localIndex = combo->findText(QStringLiteral("local"));
        QVERIFY(localIndex >= 0);
        combo->setCurrentIndex(localIndex);
        Q_EMIT combo->textActivated(QStringLiteral("local"));
        QVERIFY(!session.remote());
        QCOMPARE(session.hostDisplay(), QStringLiteral("local"));

        // A Slurm allocation is a host too (taken when the next run needs it); a bad option is
        // refused with the Slurm form.
        QVERIFY(!window.changeHost(QStringLiteral("slurm://gpu?gpus=1")));
        QVERIFY2(window.statusBar()->currentMessage().contains(QLatin1String("gres")),
                 qPrintable(window.statusBar()->currentMessage()));
        QVERIFY(!session.remote());
        const QString slurm = QStringLiteral("slurm://gpu?gres=gpu:1&time=30");
        QVERIFY(window.changeHost(slurm));
        QVERIFY(session.remote() && session.remote()->isSlurm());
        QCOMPARE(session.hostDisplay(), slurm);
        QCOMPARE(combo->currentText(), slurm);
    }

    void savedSessionComesBack()
    {
        QTemporaryDir dir;
        {
            Session session(builtinTools(), test::optionsFor(dir.path()));
            test::installFakeVerify(session);
            SessionStore store(session);
            QVERIFY(store.load());
            Job *job = session.start(QStringLiteral("verify"), Json{{"n", 1}, {"pause_ms", 1}},
                                     QStringLiteral("agent"));
            QTRY_VERIFY(job->state() != Job::State::Running);
            QTRY_COMPARE(store.runs().size(), 1);
        }
        Session session(builtinTools(), test::optionsFor(dir.path()));
        SessionStore store(session);
        QVERIFY(store.load());
        MainWindow window(&session, &store);
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(hotkernel::test::kEventLimitMs));
        QCOMPARE(window.feedModel()->rowCount(), 1);
        QCOMPARE(window.feedModel()->index(0, AgentFeedModel::ToolColumn).data().toString(),
                 QStringLiteral("verify"));
        window.historyModel()->setTarget({});
        QCOMPARE(window.historyModel()->rowCount(), 1); // the unrecorded verify of the earlier session
    }

    void screenshotsHaveContent_data()
    {
        QTest::addColumn<QString>("theme");
        QTest::newRow("light") << QStringLiteral("light");
        QTest::newRow("dark") << QStringLiteral("dark");
    }

    void screenshotsHaveContent()
    {
        QFETCH(QString, theme);
        QVERIFY(AppTheme::apply(theme));
        QTemporaryDir dir;
        Session session(builtinTools(), test::optionsFor(dir.path()));
        MainWindow window(&session);
        window.show();
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(hotkernel::test::kEventLimitMs));
        const QStringList files = window.writeScreenshots(dir.filePath(QStringLiteral("shots")));
        QCOMPARE(files.size(), 10); // the window twice (and at 1280x720), seven panes, the Verify dialog
        for (const QString &file : files)
            QVERIFY2(distinctColours(file) > 8, qPrintable(file));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
