// SPDX-License-Identifier: Apache-2.0
// `hotkernel mcp [--headless]`: attaches the agent to the workbench open for the current
// directory, starts one when there is a display, else serves the session in-process (issue 6).
#pragma once

#include <QStringList>

class QCoreApplication;

namespace hotkernel {

class McpFrontend
{
public:
    static QString help();
    // Runs the event loop; returns the process's exit status.
    static int run(QCoreApplication &app, const QStringList &arguments);
};

} // namespace hotkernel
