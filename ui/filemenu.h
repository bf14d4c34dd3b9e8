// SPDX-License-Identifier: Apache-2.0
// The window's File menu: open a working directory or a kernel report through modeless file
// dialogs (no nested event loop), open a recent one, quit. GUI thread.
#pragma once

#include "recentplaces.h"

class QMainWindow;

namespace hotkernel::FileMenu {

// Adds &File to window's menu bar; root: the working directory open now, where the dialogs start.
// A directory chosen in the dialog becomes the newest recent directory before openDirectory runs.
void addTo(QMainWindow *window, const QString &root, const RecentPlaces::Open &openDirectory,
           const RecentPlaces::Open &openReport);

} // namespace hotkernel::FileMenu
