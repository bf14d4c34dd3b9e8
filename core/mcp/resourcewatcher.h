// SPDX-License-Identifier: Apache-2.0
// Tells the MCP server when the list of resources changed (a record, a profile, a calibration,
// a leaderboard regenerated), so it can send notifications/resources/list_changed. Watches the
// working directory's resource folders and the session's finished jobs; compares URI lists, so
// a rewrite of an existing file is not a list change. Main thread.
#pragma once

#include "mcp/mcpresources.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

#include <set>
#include <string>

namespace hotkernel {

class ResourceWatcher : public QObject
{
    Q_OBJECT
public:
    ResourceWatcher(const McpResources &resources, const QString &root, QObject *parent = nullptr);

    // Takes the current list as the one the client knows and starts watching.
    void start();

public Q_SLOTS:
    // Something may have changed (a job finished, a folder changed): look again shortly.
    void poke();

Q_SIGNALS:
    void listChanged();

private:
    std::set<std::string> currentUris() const;
    void compare();
    void rewatch();

    const McpResources &m_resources;
    QString m_root;
    QFileSystemWatcher m_watcher;
    QTimer m_settle; // coalesces a burst (record writes a log, then the leaderboard)
    std::set<std::string> m_known;
    bool m_started = false;
};

} // namespace hotkernel
