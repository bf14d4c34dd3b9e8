// SPDX-License-Identifier: Apache-2.0
// The window's pictures for the docs and the issue 45 checks: the whole window at its size and at
// 1280x720, each pane (a tabbed one raised for its picture), the verify dialog and a bench row's
// details. GUI thread.
#pragma once

#include <QList>
#include <QStringList>

class QDockWidget;

namespace hotkernel {

class MainWindow;

namespace WindowScreenshots {

// window.png, one PNG per dock and dialog-verify.png (window-<suffix>.png, ... when a suffix is
// given) into dir; returns the files written.
QStringList write(MainWindow *window, const QList<QDockWidget *> &docks, const QString &dir,
                  const QString &suffix);

} // namespace WindowScreenshots
} // namespace hotkernel
