// SPDX-License-Identifier: Apache-2.0
#include "mainwindow.h"

#include "agentfeedmodel.h"
#include "agentfeedview.h"
#include "base/boundedfile.h"
#include "base/job.h"
#include "diffpair.h"
#include "filemenu.h"
#include "helpmenu.h"
#include "hostselector.h"
#include "inspect/rooflineresult.h"
#include "kernelfilterproxy.h"
#include "kerneltablemodel.h"
#include "kerneltableview.h"
#include "recentplaces.h"
#include "recordrequest.h"
#include "rooflinechartview.h"
#include "sassmodel.h"
#include "sassview.h"
#include "schemaformdialog.h"
#include "session/session.h"
#include "session/sessionstore.h"
#include "session/toolspec.h"
#include "sessionactions.h"
#include "sourcetextview.h"
#include "targetsmodel.h"
#include "targetsview.h"
#include "toolarguments.h"
#include "tools/gpuinforesult.h"
#include "verifyhistorymodel.h"
#include "verifyhistoryview.h"
#include "windowscreenshots.h"
#include "workspaceopening.h"

#include <QAbstractItemView>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMenuBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace hotkernel {

namespace {

constexpr int kStatusMessageMs = 15000;

} // namespace

MainWindow::MainWindow(Session *session, SessionStore *store, QWidget *parent)
    : QMainWindow(parent), m_session(session), m_store(store), m_targetsModel(new TargetsModel(this)),
      m_historyModel(new VerifyHistoryModel(this)), m_feedModel(new AgentFeedModel(session, this)),
      m_cardLabel(new QLabel(this)), m_pythonLabel(new QLabel(this)), m_jobsLabel(new QLabel(this)),
      m_agentsLabel(new AgentsLabel(session->workDir().root(), this)), m_panes(this)
{
    m_recordButton = new QPushButton(this);
    m_recordButton->hide();
    connect(m_recordButton, &QPushButton::clicked, this, [this] { recordDialog(); });
    setWindowTitle(tr("hotkernel: %1").arg(QDir::toNativeSeparators(session->workDir().root())));
    RecentPlaces::add(RecentPlaces::kDirectories, session->workDir().root());
    setObjectName(QStringLiteral("hotkernelMainWindow"));
    setDockNestingEnabled(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks |
                   QMainWindow::AllowTabbedDocks);

    createPanes();
    createStatusBar();
    SessionActions::addToolBar(this, session->tools());
    SessionActions::addKernelActions(this, session->tools(), session->workDir().root());
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
    if (m_store)
        loadStore();

    // Tab moves between widgets, never from cell to cell inside a table (arrows do that).
    for (QAbstractItemView *v : findChildren<QAbstractItemView *>())
        v->setTabKeyNavigation(false);

    QSettings settings;
    if (!settings.contains(QStringLiteral("window/geometry"))) {
        resize(defaultSize());
        resetLayout();
    }
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    updateStatus();
    reloadWorkspace();
}

// No join with a workspace load still running: its task holds copies of the paths only and
// returns a value, which the destroyed watcher simply never delivers.
MainWindow::~MainWindow() = default;

void MainWindow::createPanes()
{
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
    m_feedView = new AgentFeedView(m_session, m_feedModel);

    m_panes.add(m_targetsView, tr("Targets"), QStringLiteral("targets"), Qt::LeftDockWidgetArea);
    m_panes.add(m_kernelView, tr("Kernels"), QStringLiteral("kernels"), Qt::LeftDockWidgetArea);
    m_panes.add(m_sassView, tr("SASS"), QStringLiteral("sass"), Qt::RightDockWidgetArea);
    m_panes.add(sourcePane, tr("Source"), QStringLiteral("source"), Qt::RightDockWidgetArea);
    m_panes.add(m_rooflineView, tr("Roofline"), QStringLiteral("roofline"), Qt::RightDockWidgetArea);
    m_panes.add(m_historyView, tr("Verify history"), QStringLiteral("history"), Qt::BottomDockWidgetArea);
    m_panes.add(m_feedView, tr("Agent feed"), QStringLiteral("feed"), Qt::BottomDockWidgetArea);
    resetLayout();
}

void MainWindow::createStatusBar()
{
    m_hostSelector = new HostSelector(this);
    m_hostSelector->showHost(m_session->hostDisplay(), m_session->hostError());
    connect(m_hostSelector, &HostSelector::hostRequested, this, &MainWindow::changeHost);
    // Also when another front-end of the session moves it.
    connect(m_session, &Session::hostChanged, this,
            [this] { m_hostSelector->showHost(m_session->hostDisplay(), m_session->hostError()); });
    statusBar()->addWidget(m_hostSelector);
    statusBar()->addWidget(m_cardLabel);
    statusBar()->addWidget(m_pythonLabel);
    statusBar()->addWidget(m_recordButton);
    statusBar()->addPermanentWidget(m_agentsLabel);
    statusBar()->addPermanentWidget(m_jobsLabel);
}

void MainWindow::loadStore()
{
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

void MainWindow::createMenus()
{
    FileMenu::addTo(
        this, m_session->workDir().root(), [this](const QString &dir) { Q_EMIT openDirectoryRequested(dir); },
        [this](const QString &report) { openReport(report); });
    auto *run = menuBar()->addMenu(tr("&Run"));
    for (QAction *a : findChild<QToolBar *>(QStringLiteral("sessionToolBar"))->actions())
        run->addAction(a);

    auto *view = menuBar()->addMenu(tr("&View"));
    const QList<QDockWidget *> &docks = m_panes.all();
    for (QDockWidget *dock : docks)
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    // Panes by key: Alt+1.. in the View menu's order, F6 / Shift+F6 to the next / previous.
    auto *go = view->addMenu(tr("&Go to pane"));
    for (qsizetype i = 0; i < docks.size(); ++i) {
        QDockWidget *dock = docks[i];
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

    HelpMenu::addTo(this);
}

void MainWindow::openReport(const QString &path)
{
    RecentPlaces::add(RecentPlaces::kReports, path);
    if (m_store)
        m_store->addProfile(path);
    else if (!m_openedReports.contains(path))
        m_openedReports.append(path);
    reloadWorkspace();
}

void MainWindow::resetLayout()
{
    m_panes.applyDefaultLayout(m_sassView);
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
    PaneDocks::focus(dock);
}

void MainWindow::focusNextPane(int step)
{
    m_panes.focusNext(step);
}

QDockWidget *MainWindow::dock(const QString &objectName) const
{
    return m_panes.dock(objectName);
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
        wanted = Json{{"baseline", ToolArguments::baselineScript(target)},
                      {"candidate", ToolArguments::candidateScript(target)}};
    return runDialog(QStringLiteral("verify"),
                     ToolArguments::known(m_session->tools(), QStringLiteral("verify"), wanted));
}

QDialog *MainWindow::recordDialog()
{
    const QModelIndex current = m_historyView->table()->currentIndex();
    const VerifyRecord *chosen = RecordRequest::choose(
        m_historyModel->shown(), current.isValid() ? current.row() : -1, [this](const VerifyRecord &v) {
            return m_verifyResults.contains(v.verifiedAt) &&
                   m_session->vouchesForVerify(m_verifyResults.value(v.verifiedAt));
        });
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
    return runDialog(QStringLiteral("record"), RecordRequest::fields(*chosen, who),
                     RecordRequest::hidden(*chosen, m_verifyResults.value(chosen->verifiedAt)));
}

Job *MainWindow::startTool(const QString &tool, const Json &arguments)
{
    return m_session->start(tool, arguments, QStringLiteral("window"));
}

Job *MainWindow::startVerify(const QString &target, int n, int warmup)
{
    const Json wanted{{"baseline", ToolArguments::baselineScript(target)},
                      {"candidate", ToolArguments::candidateScript(target)},
                      {"n", n},
                      {"warmup", warmup}};
    return startTool(QStringLiteral("verify"),
                     ToolArguments::known(m_session->tools(), QStringLiteral("verify"), wanted));
}

Job *MainWindow::startBench(const QString &script)
{
    return startTool(
        QStringLiteral("bench"),
        ToolArguments::known(m_session->tools(), QStringLiteral("bench"), Json{{"script", toStd(script)}}));
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
    m_historyModel->setRecords(WorkspaceOpening::history(m_workspace.records, m_sessionVerifies));
    const QString target = m_targetsView->currentTarget();
    m_targetsModel->refresh(m_workspace.root, m_store ? m_store->runs() : QList<RunSummary>(),
                            m_historyModel->all());
    if (!target.isEmpty())
        m_targetsView->selectTarget(target);
    else if (m_targetsModel->rowCount() > 0)
        m_targetsView->selectTarget(m_targetsModel->targets().first().name);
    // Open on a report whose kernels have a disassembly, when one does.
    if (m_kernelView->selectedKernel().isEmpty()) {
        if (const auto reports = WorkspaceOpening::reports(m_workspace))
            m_kernelView->showReports(reports->after, reports->before);
    }
    if (m_kernelView->selectedKernel().isEmpty() && m_kernelView->proxy()->rowCount() > 0)
        m_kernelView->selectKernel(WorkspaceOpening::firstKernel(m_kernelView->proxy(), m_workspace));
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
    const SassFunction *selected = m_workspace.functionFor(m_kernelView->selectedKernel());
    if (const auto pair = DiffPair::choose(m_workspace.functions, target, selected)) {
        m_sassView->setDiff(*pair->left, *pair->right, pair->leftLabel, pair->rightLabel);
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
    for (QDockWidget *dock : m_panes.all()) {
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
        if (const VerifyRecord *r = result.as<VerifyRecord>())
            addVerify(*r, result.structured);
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

void MainWindow::addVerify(const VerifyRecord &r, const Json &result)
{
    // Kept whole, unread: record takes it back by value when it has no verify_id, and the
    // session vouches for it by its digest.
    m_verifyResults.insert(r.verifiedAt, result);
    // Record is the next step of the loop: offer it where the eye is.
    m_recordButton->setText(
        tr("Record this verify (%1)...").arg(r.speedup ? VerifyHistoryModel::outcomeText(r) : r.verdict));
    m_recordButton->show();
    m_sessionVerifies.push_back(r);
    m_historyModel->addRecord(r);
    refreshRoofline();
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
    m_agentsLabel->attached(name);
    m_feedModel->addEvent(name, tr("attached"), tr("agent %1 attached").arg(name));
}

void MainWindow::agentDetached(const QString &name, int jobsEnded)
{
    m_agentsLabel->detached(name);
    m_feedModel->addEvent(name, tr("disconnected"),
                          tr("agent %1 disconnected; %n job(s) ended", nullptr, jobsEnded).arg(name));
}

void MainWindow::setAgentAccess(bool listening, const QString &detail)
{
    m_agentsLabel->setAccess(listening, detail);
}

QStringList MainWindow::writeScreenshots(const QString &dir, const QString &suffix)
{
    return WindowScreenshots::write(this, m_panes.all(), dir, suffix);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

} // namespace hotkernel
