// SPDX-License-Identifier: Apache-2.0
// The workbench window over one Session: targets, kernel table, roofline, SASS, verify history and
// the live feed of every job (the window's and the agents'), as docks whose layout QSettings keeps.
// Actions start tools through Session::start like the CLI and MCP do (client "window"). GUI thread.
#pragma once

#include "agentslabel.h"
#include "base/json.h"
#include "panedocks.h"
#include "workspace/workspace.h"

#include <QFutureWatcher>
#include <QHash>
#include <QMainWindow>

class QLabel;
class QDockWidget;
class QDialog;
class QMenu;
class QPushButton;

namespace hotkernel {

class AgentFeedModel;
class AgentFeedView;
class HostSelector;
class Job;
class KernelTableView;
class RooflineChartView;
class SassView;
class Session;
class SessionStore;
class SourceTextView;
class TargetsModel;
class TargetsView;
class VerifyHistoryModel;
class VerifyHistoryView;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    // store may be null (no persistence); its reloaded runs and history show at once.
    explicit MainWindow(Session *session, SessionStore *store = nullptr, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Reads the working directory again on a worker thread; workspaceLoaded() follows.
    void reloadWorkspace();
    void setWorkspace(Workspace workspace);
    const Workspace &workspace() const { return m_workspace; }
    // Extra roofline points (e.g. kernels from roofline runs), keyed by kernel name.
    void addRooflinePoints(const std::vector<RooflinePoint> &points);

    // What the toolbar actions do once their dialog is accepted.
    Job *startVerify(const QString &target, int n, int warmup);
    Job *startBench(const QString &script);
    Job *startTool(const QString &tool, const Json &arguments);
    // Opens the dialog of tool with initial values (fixed ones are passed as given); the dialog,
    // or null when there is no such tool.
    QDialog *runDialog(const QString &tool, const Json &initial, const Json &fixed = Json::object());
    // Verify's dialog, filled in with the selected target's baseline and candidate.
    QDialog *verifyDialog();
    // The record dialog for the selected history row, else the target's latest verify nobody
    // recorded: target, who and note filled in; null when there is no verify to record.
    QDialog *recordDialog();
    // A report file (ncu/nsys CSV, trace) shown in the kernel table beside profiles/.
    void openReport(const QString &path);
    // The dock layout the window opens with the first time.
    void resetLayout();
    QDockWidget *dock(const QString &objectName) const;
    // The size the window first opens at: 1600x1000, bounded by the screen's free area.
    QSize defaultSize() const;
    static QSize defaultSizeFor(const QSize &available);
    // Raises a pane and gives the keyboard to its table or text (Alt+1.., F6).
    void focusPane(QDockWidget *dock);
    void focusNextPane(int step);
    // What the Source pane says above the text (why there are no per-line samples).
    QString sourceNote() const;
    // Diff SASS: the selected target's baseline and candidate listings side by side, else two
    // builds of the selected kernel; else the SASS pane's note says what is missing.
    void showTargetDiff();

    // Agents attached through the session's listener (app/ connects SessionListener here): the
    // feed and the status bar say who is attached, who left and how many of its jobs ended.
    void agentAttached(const QString &name);
    void agentDetached(const QString &name, int jobsEnded);
    // listening: agents can attach; else detail says why not (shown in the status bar).
    void setAgentAccess(bool listening, const QString &detail);
    QLabel *agentsLabel() const { return m_agentsLabel; }

    // Writes window.png, one PNG per pane and dialog-verify.png into dir (window-<suffix>.png, ...
    // when a suffix is given); returns the files written.
    QStringList writeScreenshots(const QString &dir, const QString &suffix = {});

    KernelTableView *kernelView() const { return m_kernelView; }
    SassView *sassView() const { return m_sassView; }
    RooflineChartView *rooflineView() const { return m_rooflineView; }
    VerifyHistoryModel *historyModel() const { return m_historyModel; }
    VerifyHistoryView *historyView() const { return m_historyView; }
    AgentFeedModel *feedModel() const { return m_feedModel; }
    AgentFeedView *feedView() const { return m_feedView; }
    TargetsView *targetsView() const { return m_targetsView; }
    TargetsModel *targetsModel() const { return m_targetsModel; }
    QLabel *jobsLabel() const { return m_jobsLabel; }
    HostSelector *hostSelector() const { return m_hostSelector; }
    // The host selector's request: moves the session there, or says in the status bar why not.
    bool changeHost(const QString &host);

Q_SIGNALS:
    void workspaceLoaded();
    // File > Open directory: a session belongs to one directory, so app/ opens another window.
    void openDirectoryRequested(const QString &path);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createPanes();
    void createStatusBar();
    void createMenus();
    // The saved session's reloaded runs (the feed) and verifies (history, Record).
    void loadStore();
    void showSourceOf(const QString &target);
    void onJobFinished(Job *job);
    // A verify this window saw finish: in the history, and offered to Record (result: its JSON).
    void addVerify(const VerifyRecord &r, const Json &result);
    void updateStatus();
    void onKernelSelected(const QString &name);
    void onTargetSelected(const QString &name);
    void refreshRoofline();
    void openScript(const QString &path);

    Session *m_session;
    SessionStore *m_store;
    Workspace m_workspace;
    std::vector<VerifyRecord> m_sessionVerifies; // verified here or in a saved session, not recorded
    std::vector<RooflinePoint> m_extraPoints;
    QHash<QString, Json> m_verifyResults;  // verify results by finished_at, for Record
    QStringList m_openedReports;           // File > Open report, without a saved session
    QString m_explicitCard;                // named by gpu_info or a roofline call: its ceilings show
    QPushButton *m_recordButton = nullptr; // in the status bar after a verify nobody recorded
    HostSelector *m_hostSelector = nullptr;
    QFutureWatcher<Workspace> m_loader;

    TargetsModel *m_targetsModel;
    VerifyHistoryModel *m_historyModel;
    AgentFeedModel *m_feedModel;
    TargetsView *m_targetsView;
    KernelTableView *m_kernelView;
    RooflineChartView *m_rooflineView;
    SassView *m_sassView;
    SourceTextView *m_sourceView;
    QLabel *m_sourceNote;
    VerifyHistoryView *m_historyView;
    AgentFeedView *m_feedView;
    QLabel *m_cardLabel;
    QLabel *m_pythonLabel;
    QLabel *m_jobsLabel;
    AgentsLabel *m_agentsLabel;
    PaneDocks m_panes;
};

} // namespace hotkernel
