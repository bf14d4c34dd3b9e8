// SPDX-License-Identifier: Apache-2.0
#include "mainwindow.h"

#include "agentfeedmodel.h"
#include "agentfeedview.h"
#include "base/boundedfile.h"
#include "base/job.h"
#include "hostselector.h"
#include "inspect/rooflineresult.h"
#include "kernelfilterproxy.h"
#include "kernelrowrequests.h"
#include "kerneltablemodel.h"
#include "kerneltableview.h"
#include "resultdetailsdialog.h"
#include "rooflinechartview.h"
#include "sassmodel.h"
#include "sassview.h"
#include "schemaformdialog.h"
#include "session/session.h"
#include "session/sessionstore.h"
#include "session/toolspec.h"
#include "sourcetextview.h"
#include "targetsmodel.h"
#include "targetsview.h"
#include "tools/gpuinforesult.h"
#include "verifyhistorymodel.h"
#include "verifyhistoryview.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

namespace hotkernel {

namespace {

constexpr int kRecentCount = 8;
constexpr int kStatusMessageMs = 15000;
constexpr int kDefaultLeftWidth = 880; // of the default 1600: the kernel table's columns
constexpr int kSassRows = 8;           // listing rows a short window keeps for SASS around its hot line

// The markdown files Help shows, bundled as resources (ui/CMakeLists.txt).
const QString kHelpRoot = QStringLiteral(":/hotkernel-help");

QString readResource(const QString &path)
{
    QFile file(path); // not a named file: a resource compiled into the binary
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

MainWindow::MainWindow(Session *session, SessionStore *store, QWidget *parent)
    : QMainWindow(parent), m_session(session), m_store(store), m_targetsModel(new TargetsModel(this)),
      m_historyModel(new VerifyHistoryModel(this)), m_feedModel(new AgentFeedModel(session, this)),
      m_cardLabel(new QLabel(this)), m_pythonLabel(new QLabel(this)), m_jobsLabel(new QLabel(this)),
      m_agentsLabel(new QLabel(this))
{
    m_recordButton = new QPushButton(this);
    m_recordButton->hide();
    connect(m_recordButton, &QPushButton::clicked, this, [this] { recordDialog(); });
    setWindowTitle(tr("hotkernel: %1").arg(QDir::toNativeSeparators(session->workDir().root())));
    addRecent(QStringLiteral("recent/directories"), session->workDir().root());
    setObjectName(QStringLiteral("hotkernelMainWindow"));
    setDockNestingEnabled(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks |
                   QMainWindow::AllowTabbedDocks);

    m_targetsView = new TargetsView(m_targetsModel);
    m_kernelView = new KernelTableView;
    m_rooflineView = new RooflineChartView;
    m_sassView = new SassView;
    m_sourceView = new SourceTextView;
    m_sourceNote = new QLabel;
    m_sourceNote->setWordWrap(true);
    m_sourceNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *sourcePane = new QWidget;
    auto *sourceLayout = new QVBoxLayout(sourcePane);
    sourceLayout->setContentsMargins(2, 2, 2, 2);
    sourceLayout->addWidget(m_sourceNote);
    sourceLayout->addWidget(m_sourceView, 1);
    m_historyView = new VerifyHistoryView(m_historyModel);
    m_feedView = new AgentFeedView(session, m_feedModel);

    addDock(m_targetsView, tr("Targets"), QStringLiteral("targets"), Qt::LeftDockWidgetArea);
    addDock(m_kernelView, tr("Kernels"), QStringLiteral("kernels"), Qt::LeftDockWidgetArea);
    addDock(m_sassView, tr("SASS"), QStringLiteral("sass"), Qt::RightDockWidgetArea);
    addDock(sourcePane, tr("Source"), QStringLiteral("source"), Qt::RightDockWidgetArea);
    addDock(m_rooflineView, tr("Roofline"), QStringLiteral("roofline"), Qt::RightDockWidgetArea);
    addDock(m_historyView, tr("Verify history"), QStringLiteral("history"), Qt::BottomDockWidgetArea);
    addDock(m_feedView, tr("Agent feed"), QStringLiteral("feed"), Qt::BottomDockWidgetArea);
    applyDefaultLayout();

    m_hostSelector = new HostSelector(this);
    m_hostSelector->showHost(session->hostDisplay(), session->hostError());
    connect(m_hostSelector, &HostSelector::hostRequested, this, &MainWindow::changeHost);
    // Also when another front-end of the session moves it.
    connect(session, &Session::hostChanged, this,
            [this] { m_hostSelector->showHost(m_session->hostDisplay(), m_session->hostError()); });
    statusBar()->addWidget(m_hostSelector);
    statusBar()->addWidget(m_cardLabel);
    statusBar()->addWidget(m_pythonLabel);
    statusBar()->addWidget(m_recordButton);
    statusBar()->addPermanentWidget(m_agentsLabel);
    statusBar()->addPermanentWidget(m_jobsLabel);
    createActions();
    createMenus();

    connect(m_kernelView, &KernelTableView::kernelSelected, this, &MainWindow::onKernelSelected);
    connect(m_kernelView, &KernelTableView::reportChanged, this, &MainWindow::refreshRoofline);
    connect(m_rooflineView, &RooflineChartView::pointSelected, this,
            [this](const QString &key) { m_kernelView->selectKernel(key); });
    connect(m_targetsView, &TargetsView::targetSelected, this, &MainWindow::onTargetSelected);
    connect(m_targetsView, &TargetsView::scriptOpened, this, &MainWindow::openScript);
    connect(session, &Session::jobStarted, this, &MainWindow::updateStatus);
    connect(session, &Session::jobFinished, this, &MainWindow::onJobFinished);
    connect(&m_loader, &QFutureWatcher<Workspace>::finished, this,
            [this] { setWorkspace(m_loader.result()); });

    if (m_store) {
        QList<RunSummary> reloaded;
        for (const RunSummary &r : m_store->runs()) {
            if (r.reloaded)
                reloaded.append(r);
        }
        m_feedModel->setReloadedRuns(reloaded);
        for (const Json &verify : m_store->history()) {
            if (auto r = VerifyRecord::fromJson(verify)) {
                m_verifyResults.insert(r->verifiedAt, verify);
                m_sessionVerifies.push_back(std::move(*r));
            }
        }
    }

    // Tab moves between widgets, never from cell to cell inside a table (arrows do that).
    for (QAbstractItemView *v : findChildren<QAbstractItemView *>())
        v->setTabKeyNavigation(false);

    QSettings settings;
    if (!settings.contains(QStringLiteral("window/geometry"))) {
        resize(defaultSize());
        applyDefaultLayout();
    }
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    updateStatus();
    updateAgentsLabel();
    reloadWorkspace();
}

// No join with a workspace load still running: its task holds copies of the paths only and
// returns a value, which the destroyed watcher simply never delivers.
MainWindow::~MainWindow() = default;

QDockWidget *MainWindow::addDock(QWidget *widget, const QString &title, const QString &name,
                                 Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(name); // saveState() needs it
    dock->setWidget(widget);
    addDockWidget(area, dock);
    m_docks.append(dock);
    return dock;
}

void MainWindow::createActions()
{
    // The one toolbar: the loop's steps in the order a session goes through them.
    auto *toolBar = addToolBar(tr("Session"));
    toolBar->setObjectName(QStringLiteral("sessionToolBar"));
    auto *newTarget = toolBar->addAction(tr("New target..."), this,
                                         [this] { runDialog(QStringLiteral("new_target"), Json::object()); });
    newTarget->setShortcut(QKeySequence::New);
    auto *profile = toolBar->addAction(tr("Profile..."), this, [this] {
        const QString target = m_targetsView->currentTarget();
        runDialog(QStringLiteral("profile"),
                  target.isEmpty()
                      ? Json::object()
                      : Json{{"command",
                              Json::array({"python3", toStd(target + QStringLiteral("_candidate.py"))})}});
    });
    profile->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    auto *bench = toolBar->addAction(tr("Bench..."), this, [this] {
        const QString target = m_targetsView->currentTarget();
        runDialog(QStringLiteral("bench"),
                  forTool(QStringLiteral("bench"),
                          target.isEmpty()
                              ? Json::object()
                              : Json{{"script", toStd(target + QStringLiteral("_candidate.py"))}}));
    });
    bench->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    auto *verify = toolBar->addAction(tr("Verify..."), this, [this] { verifyDialog(); });
    verify->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    verify->setObjectName(QStringLiteral("actionVerify"));
    auto *record = toolBar->addAction(tr("Record..."), this, [this] { recordDialog(); });
    record->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    record->setObjectName(QStringLiteral("actionRecord"));
    record->setToolTip(
        tr("Record the selected (or latest) verify of this target in results/ and the leaderboard"));
    toolBar->addSeparator();
    auto *trace = toolBar->addAction(tr("torch_trace..."), this, [this] {
        const QString target = m_targetsView->currentTarget();
        runDialog(QStringLiteral("torch_trace"),
                  target.isEmpty() ? Json::object()
                                   : Json{{"script", toStd(target + QStringLiteral("_baseline.py"))}});
    });
    trace->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    auto *disasm = toolBar->addAction(tr("Disasm..."), this,
                                      [this] { runDialog(QStringLiteral("disasm"), Json::object()); });
    disasm->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    auto *diff = toolBar->addAction(tr("Diff SASS"), this, &MainWindow::showTargetDiff);
    diff->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    diff->setToolTip(tr("Side-by-side SASS of the selected target's baseline and candidate "
                        "(listings named <target>_baseline*.sass and <target>_candidate*.sass)"));
    auto *gpuInfo = toolBar->addAction(tr("GPU info"), this,
                                       [this] { startTool(QStringLiteral("gpu_info"), Json::object()); });
    gpuInfo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    auto *reload = toolBar->addAction(tr("Reload"), this, &MainWindow::reloadWorkspace);
    reload->setShortcut(QKeySequence::Refresh);
    // Every toolbar action has a key; its tooltip says which.
    for (QAction *a : toolBar->actions()) {
        if (a->isSeparator() || a->shortcut().isEmpty())
            continue;
        a->setToolTip(
            QStringLiteral("%1 (%2)").arg(a->toolTip(), a->shortcut().toString(QKeySequence::NativeText)));
    }

    // What a kernel row offers (its context menu): the kernel's own next steps.
    auto kernelAction = [this](const QString &text, auto slot) {
        auto *a = new QAction(text, this);
        connect(a, &QAction::triggered, this, slot);
        m_kernelView->addKernelAction(a);
    };
    kernelAction(tr("Profile this kernel (ncu --set full)..."), [this] {
        runDialog(
            QStringLiteral("profile"),
            forTool(QStringLiteral("profile"), KernelRowRequests::profile(m_kernelView->selectedKernel(),
                                                                          m_targetsView->currentTarget())));
    });
    kernelAction(tr("Disasm this kernel..."), [this] {
        runDialog(
            QStringLiteral("disasm"),
            forTool(QStringLiteral("disasm"), KernelRowRequests::disasm(m_kernelView->selectedKernel())));
    });
    kernelAction(tr("torch_trace the target's baseline..."), [this] {
        runDialog(QStringLiteral("torch_trace"),
                  KernelRowRequests::torchTrace(m_targetsView->currentTarget()));
    });
    kernelAction(tr("New target from this kernel..."), [this] {
        runDialog(QStringLiteral("new_target"),
                  forTool(QStringLiteral("new_target"),
                          KernelRowRequests::newTarget(m_kernelView->selectedKernel(),
                                                       m_kernelView->model()->table().path,
                                                       m_session->workDir().root())));
    });
}

void MainWindow::createMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    auto *openDirectory = file->addAction(tr("Open &directory..."), QKeySequence::Open, this, [this] {
        auto *dialog = new QFileDialog(this, tr("Open a working directory"), m_session->workDir().root());
        dialog->setFileMode(QFileDialog::Directory);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
            addRecent(QStringLiteral("recent/directories"), path);
            Q_EMIT openDirectoryRequested(path);
        });
        dialog->open(); // modeless to the event loop: no nested exec()
    });
    auto *openReportAction = file->addAction(tr("Open &report..."), this, [this] {
        auto *dialog = new QFileDialog(this, tr("Open a kernel report"), m_session->workDir().root(),
                                       tr("Reports (*.csv *.jsonl *.json *.txt);;All files (*)"));
        dialog->setFileMode(QFileDialog::ExistingFile);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openReport);
        dialog->open();
    });
    openDirectory->setObjectName(QStringLiteral("actionOpenDirectory"));
    openReportAction->setObjectName(QStringLiteral("actionOpenReport"));
    m_recentMenu = file->addMenu(tr("Open &recent"));
    m_recentMenu->setObjectName(QStringLiteral("menuRecent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    auto *run = menuBar()->addMenu(tr("&Run"));
    for (QAction *a : findChild<QToolBar *>(QStringLiteral("sessionToolBar"))->actions())
        run->addAction(a);

    auto *view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget *dock : std::as_const(m_docks))
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    // Panes by key: Alt+1.. in the View menu's order, F6 / Shift+F6 to the next / previous.
    auto *go = view->addMenu(tr("&Go to pane"));
    for (qsizetype i = 0; i < m_docks.size(); ++i) {
        QDockWidget *dock = m_docks[i];
        auto *a = go->addAction(dock->windowTitle(), this, [this, dock] { focusPane(dock); });
        a->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + int(i))));
        a->setObjectName(QStringLiteral("actionGoTo_") + dock->objectName());
    }
    go->addAction(tr("Next pane"), QKeySequence(Qt::Key_F6), this, [this] { focusNextPane(1); });
    go->addAction(tr("Previous pane"), QKeySequence(Qt::SHIFT | Qt::Key_F6), this,
                  [this] { focusNextPane(-1); });
    view->addSeparator();
    view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout)
        ->setObjectName(QStringLiteral("actionResetLayout"));

    auto *help = menuBar()->addMenu(tr("&Help"));
    auto *skill = help->addAction(tr("The agent &skill (kernel-speedrun)"), this, [this] {
        ResultDetailsDialog::markdown(
            tr("The kernel-speedrun skill"),
            readResource(kHelpRoot + QStringLiteral("/skills/kernel-speedrun/SKILL.md")), this)
            ->show();
    });
    skill->setObjectName(QStringLiteral("actionSkill"));
    auto *docs = help->addMenu(tr("&Docs"));
    docs->setObjectName(QStringLiteral("menuDocs"));
    QDir docsDir(kHelpRoot + QStringLiteral("/docs"));
    for (const QString &name : docsDir.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name)) {
        const QString path = docsDir.filePath(name);
        docs->addAction(name, this, [this, name, path] {
            ResultDetailsDialog::markdown(name, readResource(path), this)->show();
        });
    }
    help->addSeparator();
    auto *about = help->addAction(tr("&About hotkernel"), this, [this] {
        auto *box =
            new QMessageBox(QMessageBox::NoIcon, tr("About hotkernel"),
                            tr("<b>hotkernel %1</b><p>A workbench for finding hot GPU kernels, reading their "
                               "SASS, checking the roofline and verifying rewrites as correct and faster. "
                               "The window, the CLI and agents (over MCP: <code>hotkernel mcp</code>) "
                               "share one session.</p><p>Apache-2.0; binaries linking Qt Charts are "
                               "distributed under GPL-3.0 terms.</p>")
                                .arg(QStringLiteral(HOTKERNEL_VERSION)),
                            QMessageBox::Close, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setObjectName(QStringLiteral("aboutBox"));
        box->open();
    });
    about->setObjectName(QStringLiteral("actionAbout"));
}

void MainWindow::addRecent(const QString &key, const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value(key).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    settings.setValue(key, recent.mid(0, kRecentCount));
}

void MainWindow::fillRecentMenu()
{
    m_recentMenu->clear();
    QSettings settings;
    for (const QString &dir : settings.value(QStringLiteral("recent/directories")).toStringList()) {
        if (dir != m_session->workDir().root())
            m_recentMenu->addAction(QDir::toNativeSeparators(dir), this,
                                    [this, dir] { Q_EMIT openDirectoryRequested(dir); });
    }
    const QStringList reports = settings.value(QStringLiteral("recent/reports")).toStringList();
    if (!reports.isEmpty())
        m_recentMenu->addSeparator();
    for (const QString &report : reports)
        m_recentMenu->addAction(QFileInfo(report).fileName(), this, [this, report] { openReport(report); });
    if (m_recentMenu->isEmpty())
        m_recentMenu->addAction(tr("(nothing yet)"))->setEnabled(false);
}

void MainWindow::openReport(const QString &path)
{
    addRecent(QStringLiteral("recent/reports"), path);
    if (m_store)
        m_store->addProfile(path);
    else if (!m_openedReports.contains(path))
        m_openedReports.append(path);
    reloadWorkspace();
}

void MainWindow::applyDefaultLayout()
{
    QDockWidget *targets = dock(QStringLiteral("targets"));
    QDockWidget *kernels = dock(QStringLiteral("kernels"));
    QDockWidget *sass = dock(QStringLiteral("sass"));
    QDockWidget *source = dock(QStringLiteral("source"));
    QDockWidget *roofline = dock(QStringLiteral("roofline"));
    QDockWidget *history = dock(QStringLiteral("history"));
    QDockWidget *feed = dock(QStringLiteral("feed"));
    // Built again from nothing rather than restored from a saved state: a state saved before the
    // window first showed holds no sizes, and one saved later may hold a user's arrangement.
    for (QDockWidget *d : std::as_const(m_docks)) {
        d->setFloating(false);
        removeDockWidget(d);
    }
    addDockWidget(Qt::LeftDockWidgetArea, targets);
    addDockWidget(Qt::RightDockWidgetArea, sass);
    addDockWidget(Qt::BottomDockWidgetArea, history);
    splitDockWidget(targets, kernels, Qt::Vertical);
    splitDockWidget(sass, roofline, Qt::Vertical);
    // A short window keeps the tab bar out of the crowded right column: Source goes behind Targets
    // (one row of targets, room to spare), SASS and the roofline get the height (issue 45).
    const bool shortWindow = height() > 200 && height() < 900;
    tabifyDockWidget(shortWindow ? targets : sass, source);
    splitDockWidget(history, feed, Qt::Horizontal);
    for (QDockWidget *d : std::as_const(m_docks))
        d->show();
    sass->raise();
    targets->raise();
    // The kernel table needs the width for Nsight's columns (share to bound, before and change in
    // a comparison) beside an elided name; the charts need height to be readable.
    // Measured at 1600x1000 and scaled to the window (1280x720 keeps every pane readable).
    const double w = width() > 200 ? width() / 1600.0 : 1.0;
    const double h = height() > 200 ? height() / 1000.0 : 1.0;
    auto px = [](double v) { return int(std::lround(v)); };
    resizeDocks({targets, kernels}, {px(120 * h), px(380 * h)}, Qt::Vertical);
    resizeDocks({targets, sass}, {px(kDefaultLeftWidth * w), px((1600 - kDefaultLeftWidth) * w)},
                Qt::Horizontal);
    if (shortWindow) {
        // SASS gets kSassRows rows around its hot line, the bottom row the least that shows the
        // latest verify and the running job, the roofline all the rest (at 1280x720 the bottom
        // row's share of a tall window left SASS two rows and the plot 56 px).
        const int sassHeight = sass->minimumSizeHint().height() - m_sassView->minimumSizeHint().height() +
                               m_sassView->heightForRows(kSassRows);
        resizeDocks({kernels, history}, {px(1000 * h), 1}, Qt::Vertical);
        resizeDocks({sass}, {sassHeight}, Qt::Vertical);
    } else {
        resizeDocks({sass, roofline}, {px(330 * h), px(420 * h)}, Qt::Vertical);
        // 320 gives the bottom row the 243 px it had when the history chart's minimum (200 px)
        // set it; that minimum is 130 now, for short windows.
        resizeDocks({kernels, history}, {px(480 * h), px(320 * h)}, Qt::Vertical);
    }
    resizeDocks({history, feed}, {px(880 * w), px(720 * w)}, Qt::Horizontal);
}

void MainWindow::resetLayout()
{
    applyDefaultLayout();
}

QSize MainWindow::defaultSizeFor(const QSize &available)
{
    // 1600x1000, never larger than the screen's free area (a 1280x720 laptop gets all of it).
    return available.isValid() ? QSize(1600, 1000).boundedTo(available) : QSize(1600, 1000);
}

QSize MainWindow::defaultSize() const
{
    // The offscreen platform's made-up 800x600 screen is no screen a person sees: pictures and
    // tests drawn there keep the default size.
    const QScreen *s = screen();
    if (!s || QGuiApplication::platformName() == QLatin1String("offscreen"))
        return defaultSizeFor({});
    return defaultSizeFor(s->availableGeometry().size());
}

void MainWindow::focusPane(QDockWidget *dock)
{
    dock->show();
    dock->raise();
    QWidget *target = dock->widget();
    // The pane's first widget that takes the keyboard (its table, its text), else the pane.
    for (QWidget *w : target->findChildren<QWidget *>()) {
        if (w->isVisible() && (w->focusPolicy() & Qt::TabFocus) && qobject_cast<QAbstractItemView *>(w)) {
            target = w;
            break;
        }
    }
    target->setFocus(Qt::ShortcutFocusReason);
}

void MainWindow::focusNextPane(int step)
{
    qsizetype current = -1;
    for (qsizetype i = 0; i < m_docks.size(); ++i) {
        if (m_docks[i]->isAncestorOf(QApplication::focusWidget()))
            current = i;
    }
    const qsizetype n = m_docks.size();
    focusPane(m_docks[((current < 0 ? (step > 0 ? -1 : 0) : current) + step + n) % n]);
}

QDockWidget *MainWindow::dock(const QString &objectName) const
{
    for (QDockWidget *d : m_docks) {
        if (d->objectName() == objectName)
            return d;
    }
    return nullptr;
}

Json MainWindow::forTool(const QString &tool, const Json &wanted) const
{
    const ToolSpec *spec = m_session->tools().find(tool);
    if (!spec || !spec->inputSchema.contains("properties") || spec->inputSchema["properties"].empty())
        return wanted;
    const Json &properties = spec->inputSchema["properties"];
    Json kept = Json::object();
    for (const auto &[key, value] : wanted.items()) {
        if (properties.contains(key))
            kept[key] = value;
        else if (key == "warmup" && properties.contains("warm_up"))
            kept["warm_up"] = value;
        else if (key == "script" && properties.contains("path"))
            kept["path"] = value;
    }
    return kept;
}

QDialog *MainWindow::runDialog(const QString &tool, const Json &initial, const Json &fixed)
{
    const ToolSpec *spec = m_session->tools().find(tool);
    if (!spec)
        return nullptr;
    auto *dialog = new SchemaFormDialog(*spec, initial, this, fixed);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Modeless: the GUI never waits in a nested event loop.
    connect(dialog, &QDialog::accepted, this, [this, dialog, tool, spec] {
        const Json arguments = dialog->arguments();
        if (spec->resultKind == ToolSpec::ResultKind::Record && arguments.contains("who"))
            QSettings().setValue(QStringLiteral("record/who"), toQt(arguments["who"].get<std::string>()));
        startTool(tool, arguments);
    });
    dialog->open();
    return dialog;
}

QDialog *MainWindow::verifyDialog()
{
    const QString target = m_targetsView->currentTarget();
    Json wanted = Json::object();
    if (!target.isEmpty())
        wanted = Json{{"baseline", toStd(target + QStringLiteral("_baseline.py"))},
                      {"candidate", toStd(target + QStringLiteral("_candidate.py"))}};
    return runDialog(QStringLiteral("verify"), forTool(QStringLiteral("verify"), wanted));
}

QDialog *MainWindow::recordDialog()
{
    // The selected history row, else the newest verify of the target that nobody recorded and this
    // session can vouch for (record refuses an earlier session's verify: issue 19).
    const VerifyRecord *chosen = nullptr;
    const auto &shown = m_historyModel->shown();
    const QModelIndex current = m_historyView->table()->currentIndex();
    if (current.isValid() && size_t(current.row()) < shown.size() && !shown[size_t(current.row())].recorded)
        chosen = &shown[size_t(current.row())];
    for (auto it = shown.rbegin(); !chosen && it != shown.rend(); ++it) {
        if (!it->recorded && m_verifyResults.contains(it->verifiedAt) &&
            m_session->vouchesForVerify(m_verifyResults.value(it->verifiedAt)))
            chosen = &*it;
    }
    if (!chosen || !m_verifyResults.contains(chosen->verifiedAt)) {
        statusBar()->showMessage(tr("Nothing to record: verify the target first (Verify...); a verify "
                                    "already recorded is in results/, and only this session's verifies "
                                    "can be recorded."),
                                 8000);
        return nullptr;
    }
    QString who = QSettings().value(QStringLiteral("record/who")).toString();
    if (who.isEmpty())
        who = tr("hand-written by %1").arg(qEnvironmentVariable("USER", tr("me")));
    const QString note = chosen->speedup ? VerifyHistoryModel::outcomeText(*chosen) : chosen->verdict;
    // By id (issue 44): the session holds the result; a result without one goes by value.
    Json hidden = !chosen->verifyId.isEmpty()
                      ? Json{{"verify_id", toStd(chosen->verifyId)}}
                      : Json{{"verify_result", m_verifyResults.value(chosen->verifiedAt)}};
    return runDialog(QStringLiteral("record"),
                     Json{{"target", toStd(chosen->target)}, {"who", toStd(who)}, {"note", toStd(note)}},
                     hidden);
}

Job *MainWindow::startTool(const QString &tool, const Json &arguments)
{
    return m_session->start(tool, arguments, QStringLiteral("window"));
}

Job *MainWindow::startVerify(const QString &target, int n, int warmup)
{
    return startTool(
        QStringLiteral("verify"),
        forTool(QStringLiteral("verify"), Json{{"baseline", toStd(target + QStringLiteral("_baseline.py"))},
                                               {"candidate", toStd(target + QStringLiteral("_candidate.py"))},
                                               {"n", n},
                                               {"warmup", warmup}}));
}

Job *MainWindow::startBench(const QString &script)
{
    return startTool(QStringLiteral("bench"),
                     forTool(QStringLiteral("bench"), Json{{"script", toStd(script)}}));
}

void MainWindow::reloadWorkspace()
{
    if (m_loader.isRunning())
        return;
    const QString root = m_session->workDir().root();
    const QStringList profiles = m_store ? m_store->profiles() : m_openedReports;
    m_loader.setFuture(QtConcurrent::run([root, profiles] { return Workspace::load(root, profiles); }));
}

void MainWindow::setWorkspace(Workspace workspace)
{
    m_workspace = std::move(workspace);
    // A card named explicitly (gpu_info, a roofline call) gives the ceilings on a machine whose
    // directory names none, e.g. one without a GPU.
    if (m_workspace.card.isEmpty() && !m_explicitCard.isEmpty())
        m_workspace.card = m_explicitCard;
    m_kernelView->setTables(m_workspace.kernelTables);
    std::vector<VerifyRecord> records = m_workspace.records;
    // Verifies nobody recorded yet stay visible (a record of the same verify replaces it).
    for (const VerifyRecord &v : m_sessionVerifies) {
        const bool recorded = std::any_of(records.begin(), records.end(), [&v](const VerifyRecord &r) {
            return r.verifiedAt == v.verifiedAt && !v.verifiedAt.isEmpty();
        });
        if (!recorded)
            records.push_back(v);
    }
    std::stable_sort(records.begin(), records.end(),
                     [](const auto &a, const auto &b) { return a.time < b.time; });
    m_historyModel->setRecords(std::move(records));
    const QString target = m_targetsView->currentTarget();
    m_targetsModel->refresh(m_workspace.root, m_store ? m_store->runs() : QList<RunSummary>(),
                            m_historyModel->all());
    if (!target.isEmpty())
        m_targetsView->selectTarget(target);
    else if (m_targetsModel->rowCount() > 0)
        m_targetsView->selectTarget(m_targetsModel->targets().first().name);
    if (m_kernelView->selectedKernel().isEmpty()) {
        // Open on a report whose kernels have a disassembly, when one does.
        for (size_t t = 0; t < m_workspace.kernelTables.size(); ++t) {
            const auto &kernels = m_workspace.kernelTables[t].kernels;
            if (std::any_of(kernels.begin(), kernels.end(),
                            [this](const KernelStat &k) { return m_workspace.functionFor(k.name); })) {
                // A candidate's report opens as the change it is: its target's baseline -> it.
                const QString file = QFileInfo(m_workspace.kernelTables[t].path).fileName();
                const qsizetype at = file.indexOf(QLatin1String("_candidate"));
                int before = -1;
                for (size_t b = 0; at > 0 && b < m_workspace.kernelTables.size(); ++b) {
                    if (QFileInfo(m_workspace.kernelTables[b].path)
                            .fileName()
                            .startsWith(file.left(at) + QStringLiteral("_baseline"))) {
                        before = int(b);
                        break;
                    }
                }
                m_kernelView->showReports(int(t), before);
                break;
            }
        }
    }
    if (m_kernelView->selectedKernel().isEmpty() && m_kernelView->proxy()->rowCount() > 0) {
        // Start on the heaviest kernel that has a disassembly, else the heaviest.
        QString first = m_kernelView->proxy()->index(0, 0).data(KernelTableModel::KernelNameRole).toString();
        for (int r = 0; r < m_kernelView->proxy()->rowCount(); ++r) {
            const QString name =
                m_kernelView->proxy()->index(r, 0).data(KernelTableModel::KernelNameRole).toString();
            if (m_workspace.functionFor(name)) {
                first = name;
                break;
            }
        }
        m_kernelView->selectKernel(first);
    }
    refreshRoofline();
    updateStatus();
    Q_EMIT workspaceLoaded();
}

void MainWindow::addRooflinePoints(const std::vector<RooflinePoint> &points)
{
    m_extraPoints.insert(m_extraPoints.end(), points.begin(), points.end());
    refreshRoofline();
}

void MainWindow::refreshRoofline()
{
    // Kernel points come from the report the kernel table shows, keyed by kernel name.
    // In a comparison, the before report's kernels are the baseline's points (removed ones too).
    const KernelTableModel *kernels = m_kernelView->model();
    RooflineData data =
        m_workspace.roofline(m_historyModel->shown(), &kernels->table(), QStringLiteral("bf16"),
                             kernels->isDelta() ? &kernels->beforeTable() : nullptr);
    data.points.insert(data.points.end(), m_extraPoints.begin(), m_extraPoints.end());
    const QString selected = m_rooflineView->selectedKey();
    m_rooflineView->setData(data);
    m_rooflineView->selectKey(selected.isEmpty() ? m_kernelView->selectedKernel() : selected);
}

void MainWindow::onKernelSelected(const QString &name)
{
    const QString shortName = KernelTableModel::shortName(name);
    if (const SassFunction *f = m_workspace.functionFor(name))
        m_sassView->setFunction(*f);
    else if (m_sassView->model()->rowCount() > 0 && !m_sassView->isDiffShown())
        // A kernel without a listing (a removed one, ATen's) keeps the listing in view: a pane
        // emptied by a click helps nobody; the note says whose listing it is.
        m_sassView->setNote(
            tr("No disassembly of %1 here (run disasm on its binary or Triton cache entry); "
               "still showing %2.")
                .arg(shortName.toHtmlEscaped(),
                     KernelTableModel::shortName(m_sassView->model()->function().name).toHtmlEscaped()));
    else
        m_sassView->clear(tr("No disassembly of %1 here. Run disasm on its binary or Triton cache entry "
                             "(and profile with ncu --set full for hot instructions).")
                              .arg(fontMetrics().elidedText(name, Qt::ElideMiddle, 400)));
    m_rooflineView->selectKey(name);
}

void MainWindow::onTargetSelected(const QString &name)
{
    m_historyModel->setTarget(name);
    refreshRoofline();
    showSourceOf(name);
}

void MainWindow::showSourceOf(const QString &target)
{
    const int row = m_targetsModel->rowForTarget(target);
    if (row < 0)
        return;
    const TargetInfo &info = m_targetsModel->targets()[row];
    const QString path = info.candidatePath.isEmpty() ? info.baselinePath : info.candidatePath;
    // A script a job named: it may have become a FIFO or a device since (issue 39).
    if (const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kScriptLimit); file.ok())
        m_sourceView->setSource(QString::fromUtf8(file.bytes), path);
    m_sourceNote->setText(sourceNote());
}

QString MainWindow::sourceNote() const
{
    const QString shown = QFileInfo(m_sourceView->fileName()).fileName();
    // ncu attributes samples to source lines only in a source page exported with the CUDA/Python
    // view (--print-source cuda); every source page here was exported as SASS.
    return tr("<b>%1</b>: no per-line samples here. The profiles of this directory attribute stall "
              "samples to SASS instructions only (the SASS tab); per-line samples need a profile made "
              "with <code>--import-source yes</code> and its source page exported with "
              "<code>--print-source cuda</code>.")
        .arg(shown.isEmpty() ? tr("Source") : shown.toHtmlEscaped());
}

void MainWindow::showTargetDiff()
{
    const QString target = m_targetsView->currentTarget();
    const SassFunction *baseline = nullptr;
    const SassFunction *candidate = nullptr;
    for (const SassFunction &f : m_workspace.functions) {
        const QString file =
            QFileInfo(f.metadata.count(QStringLiteral("file")) ? f.metadata.at(QStringLiteral("file"))
                                                               : QString())
                .fileName();
        if (!baseline && file.startsWith(target + QStringLiteral("_baseline")))
            baseline = &f;
        if (!candidate && file.startsWith(target + QStringLiteral("_candidate")))
            candidate = &f;
    }
    if (baseline && candidate && !target.isEmpty()) {
        m_sassView->setDiff(*baseline, *candidate);
        return;
    }
    // No baseline listing (ATen's kernels are rarely disassembled): two listings of the selected
    // kernel, such as two builds of a Triton kernel, older first, are the change to read.
    const QString kernel = m_kernelView->selectedKernel();
    const SassFunction *selected = m_workspace.functionFor(kernel);
    std::vector<const SassFunction *> builds;
    for (const SassFunction &f : m_workspace.functions) {
        if (selected && (f.name == selected->name) && f.level == selected->level)
            builds.push_back(&f);
    }
    auto fileOf = [](const SassFunction *f) {
        return f->metadata.count(QStringLiteral("file")) ? f->metadata.at(QStringLiteral("file")) : f->name;
    };
    if (builds.size() >= 2) {
        // The listing with samples is the profiled (kept) build: it goes on the right.
        std::stable_sort(builds.begin(), builds.end(), [](const SassFunction *a, const SassFunction *b) {
            auto sampled = [](const SassFunction *f) {
                return std::any_of(f->instructions.begin(), f->instructions.end(),
                                   [](const SassInstruction &in) { return in.stallSamples.has_value(); });
            };
            return !sampled(a) && sampled(b);
        });
        m_sassView->setDiff(*builds[0], *builds[1], fileOf(builds[0]), fileOf(builds[1]));
        return;
    }
    // Nothing to compare: the listing stays, the note says what is missing.
    m_sassView->setNote(tr("Diff SASS: no baseline and candidate listings for %1, and no second listing of "
                           "the selected kernel. Disasm both and save them as %1_baseline.sass and "
                           "%1_candidate.sass.")
                            .arg(target.isEmpty() ? tr("the target") : target));
}

void MainWindow::openScript(const QString &path)
{
    const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kScriptLimit);
    if (!file.ok())
        return;
    m_sourceView->setSource(QString::fromUtf8(file.bytes), path);
    m_sourceNote->setText(sourceNote());
    for (QDockWidget *dock : std::as_const(m_docks)) {
        if (dock->widget() == m_sourceView)
            dock->raise();
    }
}

void MainWindow::onJobFinished(Job *job)
{
    updateStatus();
    if (!job || job->result().isError)
        return;
    const ToolSpec *spec = m_session->tools().find(job->tool());
    if (!spec)
        return;
    const ToolResult &result = job->result();
    switch (spec->resultKind) {
    case ToolSpec::ResultKind::Verify:
        if (const VerifyRecord *r = result.as<VerifyRecord>()) {
            // Kept whole, unread: record takes it back by value when it has no verify_id, and the
            // session vouches for it by its digest.
            m_verifyResults.insert(r->verifiedAt, result.structured);
            // Record is the next step of the loop: offer it where the eye is.
            m_recordButton->setText(tr("Record this verify (%1)...")
                                        .arg(r->speedup ? VerifyHistoryModel::outcomeText(*r) : r->verdict));
            m_recordButton->show();
            m_sessionVerifies.push_back(*r);
            m_historyModel->addRecord(*r);
            refreshRoofline();
        }
        break;
    case ToolSpec::ResultKind::GpuInfo:
        if (const GpuInfoResult *gpu = result.as<GpuInfoResult>(); gpu && !gpu->name().isEmpty()) {
            const QString name = gpu->name();
            m_cardLabel->setText(tr("Card: %1").arg(name));
            m_explicitCard = name;
            if (m_workspace.card.isEmpty()) {
                m_workspace.card = name;
                refreshRoofline();
            }
        }
        break;
    case ToolSpec::ResultKind::Roofline:
        if (const RooflineResult *roofline = result.as<RooflineResult>()) {
            m_explicitCard = roofline->query.card.name;
            if (!m_explicitCard.isEmpty() && m_workspace.card != m_explicitCard)
                m_workspace.card = m_explicitCard;
            // The label is the caller's argument (the result does not repeat it).
            const QString label =
                stringField(job->arguments(), "label", stringField(job->arguments(), "kernel"));
            const std::optional<double> intensity = roofline->intensity();
            const std::optional<double> flops = roofline->achievedFlopsPerSecond();
            if (!label.isEmpty() && intensity && flops)
                m_extraPoints.push_back(
                    RooflinePoint{label, QStringLiteral("kernel"), *intensity, *flops, label});
        }
        refreshRoofline();
        break;
    case ToolSpec::ResultKind::Record:
        m_recordButton->hide();
        break;
    case ToolSpec::ResultKind::Bench:
    case ToolSpec::ResultKind::NewTarget:
    case ToolSpec::ResultKind::Other:
        break;
    }
    if (spec->writesWorkspace)
        reloadWorkspace();
}

void MainWindow::updateStatus()
{
    if (m_cardLabel->text().isEmpty() || !m_workspace.card.isEmpty())
        m_cardLabel->setText(m_workspace.card.isEmpty() ? tr("Card: unknown (GPU info asks the driver)")
                                                        : tr("Card: %1").arg(m_workspace.card));
    const auto python = m_session->python().cached();
    m_pythonLabel->setText(
        python ? tr("Python: %1 (%2, torch %3)").arg(python->path, python->source, python->torchVersion)
               : tr("Python: found on first use (HOTKERNEL_PYTHON, then PATH)"));
    const auto running = m_session->runningJobs();
    QStringList names;
    for (Job *j : running)
        names.append(QStringLiteral("%1 (%2)").arg(j->tool(), j->client()));
    m_hostSelector->setEnabled(running.isEmpty()); // a job's workers stay on the host it started on
    m_jobsLabel->setText(running.isEmpty() ? tr("No jobs running")
                                           : tr("Running: %1").arg(names.join(QStringLiteral(", "))));
}

bool MainWindow::changeHost(const QString &host)
{
    const QString before = m_session->hostDisplay();
    QString error;
    if (!m_session->setHost(host, &error)) {
        m_hostSelector->showHost(before, m_session->hostError());
        statusBar()->showMessage(error, kStatusMessageMs);
        return false;
    }
    m_hostSelector->remember(m_session->hostDisplay());
    m_hostSelector->showHost(m_session->hostDisplay(), m_session->hostError());
    m_feedModel->addEvent(QStringLiteral("window"), tr("host"),
                          tr("workers now run on %1 (were on %2)").arg(m_session->hostDisplay(), before));
    statusBar()->showMessage(
        tr("Host: %1. The next bench or verify connects there.").arg(m_session->hostDisplay()),
        kStatusMessageMs);
    return true;
}

void MainWindow::agentAttached(const QString &name)
{
    m_agents.append(name);
    m_feedModel->addEvent(name, tr("attached"), tr("agent %1 attached").arg(name));
    updateAgentsLabel();
}

void MainWindow::agentDetached(const QString &name, int jobsEnded)
{
    m_agents.removeOne(name);
    m_feedModel->addEvent(name, tr("disconnected"),
                          tr("agent %1 disconnected; %n job(s) ended", nullptr, jobsEnded).arg(name));
    updateAgentsLabel();
}

void MainWindow::setAgentAccess(bool listening, const QString &detail)
{
    m_agentsCanAttach = listening;
    m_agentAccess = detail;
    updateAgentsLabel();
}

void MainWindow::updateAgentsLabel()
{
    if (!m_agentsCanAttach) {
        m_agentsLabel->setText(m_agentAccess.isEmpty() ? tr("Agents: not shared")
                                                       : tr("Agents: not shared (%1)").arg(m_agentAccess));
        m_agentsLabel->setToolTip(tr("`hotkernel mcp` cannot attach to this window's session."));
        return;
    }
    m_agentsLabel->setText(m_agents.isEmpty() ? tr("Agents: none attached")
                                              : tr("Agents: %1").arg(m_agents.join(QStringLiteral(", "))));
    m_agentsLabel->setToolTip(tr("`hotkernel mcp` started in %1 attaches to this session (socket %2).")
                                  .arg(QDir::toNativeSeparators(m_session->workDir().root()), m_agentAccess));
}

QStringList MainWindow::writeScreenshots(const QString &dir, const QString &suffix)
{
    QDir().mkpath(dir);
    QStringList written;
    auto save = [&](QWidget *w, const QString &name) {
        const QString tail = suffix.isEmpty() ? QString() : QLatin1Char('-') + suffix;
        const QString path = QDir(dir).filePath(name + tail + QStringLiteral(".png"));
        if (w->grab().save(path, "PNG"))
            written.append(path);
    };
    save(this, QStringLiteral("window"));
    // The window on a 1280x720 screen, laid out as it opens there.
    const QSize full = size();
    resize(1280, 720);
    applyDefaultLayout();
    if (layout())
        layout()->activate();
    save(this, QStringLiteral("window-1280x720"));
    resize(full);
    applyDefaultLayout();
    if (layout())
        layout()->activate();
    // A tabbed pane behind another (Source behind SASS) is raised for its picture, then put back.
    QList<QDockWidget *> raised;
    for (QDockWidget *d : std::as_const(m_docks)) {
        if (!d->visibleRegion().isEmpty())
            raised.append(d);
    }
    for (QDockWidget *d : std::as_const(m_docks)) {
        if (d->visibleRegion().isEmpty()) {
            d->raise();
            if (d->layout())
                d->layout()->activate();
        }
        save(d, d->objectName());
    }
    for (QDockWidget *d : std::as_const(raised))
        d->raise();
    // A dialog as the toolbar opens it on the selected target: summary, fields, units.
    if (QDialog *dialog = verifyDialog()) {
        if (dialog->layout())
            dialog->layout()->activate();
        save(dialog, QStringLiteral("dialog-verify"));
        dialog->close();
    }
    // The details a double-click opens on the latest bench row: its whole result, then its JSON.
    for (int row = m_feedModel->rowCount() - 1; row >= 0; --row) {
        if (m_feedModel->runAt(row).kind != ToolSpec::ResultKind::Bench)
            continue;
        if (QDialog *dialog = m_feedView->openDetails(row)) {
            if (dialog->layout())
                dialog->layout()->activate();
            save(dialog, QStringLiteral("dialog-details"));
            auto *details = qobject_cast<ResultDetailsDialog *>(dialog);
            if (details && details->showJson())
                save(dialog, QStringLiteral("dialog-details-json"));
            dialog->close();
        }
        break;
    }
    return written;
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

} // namespace hotkernel
