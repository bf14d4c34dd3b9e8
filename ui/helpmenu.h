// SPDX-License-Identifier: Apache-2.0
// The window's Help menu: the agent skill and the docs as the tree has them (bundled Markdown,
// shown in a result dialog) and the About box. Every dialog it opens is modeless. GUI thread.
#pragma once

class QMainWindow;

namespace hotkernel::HelpMenu {

// Adds &Help to window's menu bar; its dialogs are children of window.
void addTo(QMainWindow *window);

} // namespace hotkernel::HelpMenu
