// SPDX-License-Identifier: Apache-2.0
#include "mainwindow.h"

#include "agentfeedmodel.h"
#include "agentfeedview.h"
#include "kernelfilterproxy.h"
#include "kerneltablemodel.h"
#include "kerneltableview.h"
#include "rooflinechartview.h"
#include "sassview.h"
#include "schemaformdialog.h"
#include "session/job.h"
#include "session/session.h"
#include "session/sessionstore.h"
#include "sourcetextview.h"
#include "targetsmodel.h"
#include "targetsview.h"
#include "verifyhistorymodel.h"
#include "verifyhistoryview.h"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QtConcurrent/QtConcurrentRun>

namespace hotkernel {

namespace {

// Tools whose results change what the working directory holds.
bool changesWorkspace(const QString &tool)
{
    static const QStringList tools{QStringLiteral("record"),      QStringLiteral("profile"),
                                   QStringLiteral("torch_trace"), QStringLiteral("disasm"),
                                   QStringLiteral("new_target"),  QStringLiteral("bench"),
                                   QStringLiteral("top_kernels")};
    return tools.contains(tool);
}

} // namespace

MainWindow::MainWindow(Session *session, SessionStore *store, QWidget *parent)
    : QMainWindow(parent), m_session(session), m_store(store), m_targetsModel(new TargetsModel(this)),
      m_historyModel(new VerifyHistoryModel(this)), m_feedModel(new AgentFeedModel(session, this)),
      m_cardLabel(new QLabel(this)), m_pythonLabel(new QLabel(this)), m_jobsLabel(new QLabel(this)),
      m_agentsLabel(new QLabel(this))
{
    setWindowTitle(tr("hotkernel: %1").arg(QDir::toNativeSeparators(session->workDir().root())));
    setObjectName(QStringLiteral("hotkernelMainWindow"));
    setDockNestingEnabled(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks |
                   QMainWindow::AllowTabbedDocks);

    m_targetsView = new TargetsView(m_targetsModel);
    m_kernelView = new KernelTableView;
    m_rooflineView = new RooflineChartView;
    m_sassView = new SassView;
    m_sourceView = new SourceTextView;
    m_historyView = new VerifyHistoryView(m_historyModel);
    m_feedView = new AgentFeedView(session, m_feedModel);

    auto *targets = addDock(m_targetsView, tr("Targets"), QStringLiteral("targets"), Qt::LeftDockWidgetArea);
    auto *kernels = addDock(m_kernelView, tr("Kernels"), QStringLiteral("kernels"), Qt::LeftDockWidgetArea);
    auto *sass = addDock(m_sassView, tr("SASS"), QStringLiteral("sass"), Qt::RightDockWidgetArea);
    auto *source = addDock(m_sourceView, tr("Source"), QStringLiteral("source"), Qt::RightDockWidgetArea);
    auto *roofline =
        addDock(m_rooflineView, tr("Roofline"), QStringLiteral("roofline"), Qt::RightDockWidgetArea);
    auto *history =
        addDock(m_historyView, tr("Verify history"), QStringLiteral("history"), Qt::BottomDockWidgetArea);
    auto *feed = addDock(m_feedView, tr("Agent feed"), QStringLiteral("feed"), Qt::BottomDockWidgetArea);
    splitDockWidget(targets, kernels, Qt::Vertical);
    splitDockWidget(sass, roofline, Qt::Vertical);
    tabifyDockWidget(sass, source);
    sass->raise();
    splitDockWidget(history, feed, Qt::Horizontal);
    resizeDocks({targets, kernels}, {150, 350}, Qt::Vertical);
    resizeDocks({targets, sass}, {560, 700}, Qt::Horizontal);
    // The charts need height to be readable: give the roofline and the history room by default.
    resizeDocks({sass, roofline}, {330, 420}, Qt::Vertical);
    resizeDocks({kernels, history}, {420, 330}, Qt::Vertical);

    statusBar()->addWidget(m_cardLabel);
    statusBar()->addWidget(m_pythonLabel);
    statusBar()->addPermanentWidget(m_agentsLabel);
    statusBar()->addPermanentWidget(m_jobsLabel);
    createActions();

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
            if (auto r = VerifyRecord::fromJson(verify))
                m_sessionVerifies.push_back(std::move(*r));
        }
    }

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    if (!settings.contains(QStringLiteral("window/geometry")))
        resize(1600, 1000);
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
    auto *toolBar = addToolBar(tr("Session"));
    toolBar->setObjectName(QStringLiteral("sessionToolBar"));
    auto *newTarget = toolBar->addAction(tr("New target..."), this,
                                         [this] { runDialog(QStringLiteral("new_target"), Json::object()); });
    auto *bench = toolBar->addAction(tr("Bench..."), this, [this] {
        const QString target = m_targetsView->currentTarget();
        runDialog(QStringLiteral("bench"),
                  forTool(QStringLiteral("bench"),
                          target.isEmpty()
                              ? Json::object()
                              : Json{{"script", toStd(target + QStringLiteral("_candidate.py"))}}));
    });
    auto *verify = toolBar->addAction(tr("Verify..."), this, [this] {
        const QString target = m_targetsView->currentTarget();
        Json wanted = Json::object();
        if (!target.isEmpty())
            wanted = Json{{"baseline", toStd(target + QStringLiteral("_baseline.py"))},
                          {"candidate", toStd(target + QStringLiteral("_candidate.py"))}};
        runDialog(QStringLiteral("verify"), forTool(QStringLiteral("verify"), wanted));
    });
    auto *diff = toolBar->addAction(tr("Diff SASS"), this, &MainWindow::showTargetDiff);
    diff->setToolTip(tr("Side-by-side SASS of the selected target's baseline and candidate "
                        "(listings named <target>_baseline*.sass and <target>_candidate*.sass)"));
    toolBar->addSeparator();
    toolBar->addAction(tr("GPU info"), this,
                       [this] { startTool(QStringLiteral("gpu_info"), Json::object()); });
    toolBar->addAction(tr("Reload"), this, &MainWindow::reloadWorkspace);
    for (QAction *a : {newTarget, bench, verify, diff})
        m_targetsView->addTargetAction(a);

    auto *view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget *dock : std::as_const(m_docks))
        view->addAction(dock->toggleViewAction());
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

void MainWindow::runDialog(const QString &tool, const Json &initial)
{
    const ToolSpec *spec = m_session->tools().find(tool);
    if (!spec)
        return;
    auto *dialog = new SchemaFormDialog(*spec, initial, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Modeless: the GUI never waits in a nested event loop.
    connect(dialog, &QDialog::accepted, this, [this, dialog, tool] { startTool(tool, dialog->arguments()); });
    dialog->open();
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
    const QStringList profiles = m_store ? m_store->profiles() : QStringList();
    m_loader.setFuture(QtConcurrent::run([root, profiles] { return Workspace::load(root, profiles); }));
}

void MainWindow::setWorkspace(Workspace workspace)
{
    m_workspace = std::move(workspace);
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
                m_kernelView->showReports(int(t));
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
    RooflineData data = m_workspace.roofline(m_historyModel->shown(), &m_kernelView->model()->table());
    data.points.insert(data.points.end(), m_extraPoints.begin(), m_extraPoints.end());
    const QString selected = m_rooflineView->selectedKey();
    m_rooflineView->setData(data);
    m_rooflineView->selectKey(selected.isEmpty() ? m_kernelView->selectedKernel() : selected);
}

void MainWindow::onKernelSelected(const QString &name)
{
    if (const SassFunction *f = m_workspace.functionFor(name))
        m_sassView->setFunction(*f);
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
    if (target.isEmpty() || !baseline || !candidate) {
        m_sassView->clear(tr("No baseline and candidate SASS for %1: disasm both and save the listings as "
                             "%1_baseline.sass and %1_candidate.sass.")
                              .arg(target.isEmpty() ? tr("the target") : target));
        return;
    }
    m_sassView->setDiff(*baseline, *candidate);
}

void MainWindow::openScript(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return;
    m_sourceView->setSource(QString::fromUtf8(file.readAll()), path);
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
    const Json &s = job->result().structured;
    if (job->tool() == QLatin1String("verify")) {
        if (auto r = VerifyRecord::fromJson(s)) {
            m_sessionVerifies.push_back(*r);
            m_historyModel->addRecord(std::move(*r));
            refreshRoofline();
        }
    } else if (job->tool() == QLatin1String("gpu_info")) {
        const QString name = stringField(s, "name", stringField(s, "card"));
        if (!name.isEmpty())
            m_cardLabel->setText(tr("Card: %1").arg(name));
    } else if (job->tool() == QLatin1String("roofline") && s.contains("intensity_flops_per_byte") &&
               s.contains("achieved") && s["achieved"].is_object()) {
        const QString label = stringField(job->arguments(), "label", stringField(job->arguments(), "kernel"));
        const double intensity = s["intensity_flops_per_byte"].get<double>();
        const double tflops = s["achieved"].value("tflops", 0.0);
        if (!label.isEmpty())
            addRooflinePoints(
                {RooflinePoint{label, QStringLiteral("kernel"), intensity, tflops * 1e12, label}});
    }
    if (changesWorkspace(job->tool()))
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
    m_jobsLabel->setText(running.isEmpty() ? tr("No jobs running")
                                           : tr("Running: %1").arg(names.join(QStringLiteral(", "))));
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

QStringList MainWindow::writeScreenshots(const QString &dir)
{
    QDir().mkpath(dir);
    QStringList written;
    auto save = [&](QWidget *w, const QString &name) {
        const QString path = QDir(dir).filePath(name + QStringLiteral(".png"));
        if (w->grab().save(path, "PNG"))
            written.append(path);
    };
    save(this, QStringLiteral("window"));
    for (QDockWidget *dock : std::as_const(m_docks))
        save(dock, dock->objectName());
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
