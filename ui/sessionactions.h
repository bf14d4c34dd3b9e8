// SPDX-License-Identifier: Apache-2.0
// The window's actions that start tools: the one toolbar (the loop's steps in the order a session
// goes through them, each with a key its tooltip names) and what a kernel row's context menu
// offers. Each opens the tool's dialog through the window, prefilled from the selection. GUI thread.
#pragma once

class QToolBar;
class QString;

namespace hotkernel {

class MainWindow;
class ToolRegistry;

namespace SessionActions {

// The toolbar "sessionToolBar" of window; tools: the session's, for the dialogs' arguments.
QToolBar *addToolBar(MainWindow *window, const ToolRegistry &tools);
// The kernel table's row actions; root: the working directory (new_target's output).
void addKernelActions(MainWindow *window, const ToolRegistry &tools, const QString &root);

} // namespace SessionActions
} // namespace hotkernel
