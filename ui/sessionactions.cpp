// SPDX-License-Identifier: Apache-2.0
#include "sessionactions.h"

#include "kernelrowrequests.h"
#include "kerneltablemodel.h"
#include "kerneltableview.h"
#include "mainwindow.h"
#include "targetsview.h"
#include "toolarguments.h"

#include <QAction>
#include <QCoreApplication>
#include <QToolBar>

namespace hotkernel::SessionActions {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("hotkernel::MainWindow", text);
}

// The script argument of tool for the selected target's script (none without a target).
Json scriptOfTarget(MainWindow *window, const char *key, bool candidate)
{
    const QString target = window->targetsView()->currentTarget();
    if (target.isEmpty())
        return Json::object();
    return Json{
        {key, candidate ? ToolArguments::candidateScript(target) : ToolArguments::baselineScript(target)}};
}

void addLoopActions(QToolBar *toolBar, MainWindow *window, const ToolRegistry &tools)
{
    auto *newTarget = toolBar->addAction(tr("New target..."), window, [window] {
        window->runDialog(QStringLiteral("new_target"), Json::object());
    });
    newTarget->setShortcut(QKeySequence::New);
    auto *profile = toolBar->addAction(tr("Profile..."), window, [window] {
        const QString target = window->targetsView()->currentTarget();
        window->runDialog(
            QStringLiteral("profile"),
            target.isEmpty()
                ? Json::object()
                : Json{{"command", Json::array({"python3", ToolArguments::candidateScript(target)})}});
    });
    profile->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    auto *bench = toolBar->addAction(tr("Bench..."), window, [window, &tools] {
        window->runDialog(
            QStringLiteral("bench"),
            ToolArguments::known(tools, QStringLiteral("bench"), scriptOfTarget(window, "script", true)));
    });
    bench->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    auto *verify = toolBar->addAction(tr("Verify..."), window, [window] { window->verifyDialog(); });
    verify->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    verify->setObjectName(QStringLiteral("actionVerify"));
    auto *record = toolBar->addAction(tr("Record..."), window, [window] { window->recordDialog(); });
    record->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    record->setObjectName(QStringLiteral("actionRecord"));
    record->setToolTip(
        tr("Record the selected (or latest) verify of this target in results/ and the leaderboard"));
}

void addInspectActions(QToolBar *toolBar, MainWindow *window)
{
    auto *trace = toolBar->addAction(tr("torch_trace..."), window, [window] {
        window->runDialog(QStringLiteral("torch_trace"), scriptOfTarget(window, "script", false));
    });
    trace->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    auto *disasm = toolBar->addAction(
        tr("Disasm..."), window, [window] { window->runDialog(QStringLiteral("disasm"), Json::object()); });
    disasm->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    auto *diff = toolBar->addAction(tr("Diff SASS"), window, [window] { window->showTargetDiff(); });
    diff->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    diff->setToolTip(tr("Side-by-side SASS of the selected target's baseline and candidate "
                        "(listings named <target>_baseline*.sass and <target>_candidate*.sass)"));
    auto *gpuInfo = toolBar->addAction(
        tr("GPU info"), window, [window] { window->startTool(QStringLiteral("gpu_info"), Json::object()); });
    gpuInfo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    auto *reload = toolBar->addAction(tr("Reload"), window, [window] { window->reloadWorkspace(); });
    reload->setShortcut(QKeySequence::Refresh);
}

} // namespace

QToolBar *addToolBar(MainWindow *window, const ToolRegistry &tools)
{
    auto *toolBar = window->addToolBar(tr("Session"));
    toolBar->setObjectName(QStringLiteral("sessionToolBar"));
    addLoopActions(toolBar, window, tools);
    toolBar->addSeparator();
    addInspectActions(toolBar, window);
    // Every toolbar action has a key; its tooltip says which.
    for (QAction *a : toolBar->actions()) {
        if (a->isSeparator() || a->shortcut().isEmpty())
            continue;
        a->setToolTip(
            QStringLiteral("%1 (%2)").arg(a->toolTip(), a->shortcut().toString(QKeySequence::NativeText)));
    }
    return toolBar;
}

void addKernelActions(MainWindow *window, const ToolRegistry &tools, const QString &root)
{
    KernelTableView *kernels = window->kernelView();
    TargetsView *targets = window->targetsView();
    const auto add = [window, kernels](const QString &text, auto slot) {
        auto *a = new QAction(text, window);
        QObject::connect(a, &QAction::triggered, window, slot);
        kernels->addKernelAction(a);
    };
    const auto known = [&tools](const char *tool, const Json &wanted) {
        return ToolArguments::known(tools, QString::fromLatin1(tool), wanted);
    };
    add(tr("Profile this kernel (ncu --set full)..."), [=] {
        window->runDialog(QStringLiteral("profile"),
                          known("profile", KernelRowRequests::profile(kernels->selectedKernel(),
                                                                      targets->currentTarget())));
    });
    add(tr("Disasm this kernel..."), [=] {
        window->runDialog(QStringLiteral("disasm"),
                          known("disasm", KernelRowRequests::disasm(kernels->selectedKernel())));
    });
    add(tr("torch_trace the target's baseline..."), [=] {
        window->runDialog(QStringLiteral("torch_trace"),
                          KernelRowRequests::torchTrace(targets->currentTarget()));
    });
    add(tr("New target from this kernel..."), [=] {
        window->runDialog(
            QStringLiteral("new_target"),
            known("new_target", KernelRowRequests::newTarget(kernels->selectedKernel(),
                                                             kernels->model()->table().path, root)));
    });
}

} // namespace hotkernel::SessionActions
