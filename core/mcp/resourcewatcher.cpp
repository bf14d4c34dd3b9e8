// SPDX-License-Identifier: Apache-2.0
#include "mcp/resourcewatcher.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>

namespace hotkernel {

namespace {
// Long enough for record's log and leaderboard to land together, short next to any tool call.
constexpr int SettleMs = 150;
} // namespace

ResourceWatcher::ResourceWatcher(const McpResources &resources, const QString &root, QObject *parent)
    : QObject(parent), m_resources(resources), m_root(root)
{
    m_settle.setSingleShot(true);
    m_settle.setInterval(SettleMs);
    connect(&m_settle, &QTimer::timeout, this, &ResourceWatcher::compare);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, &ResourceWatcher::poke);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &ResourceWatcher::poke);
}

void ResourceWatcher::start()
{
    m_known = currentUris();
    m_started = true;
    rewatch();
}

void ResourceWatcher::poke()
{
    if (m_started)
        m_settle.start();
}

std::set<std::string> ResourceWatcher::currentUris() const
{
    std::set<std::string> uris;
    for (const Json &r : m_resources.list())
        uris.insert(r.value("uri", std::string()));
    return uris;
}

void ResourceWatcher::compare()
{
    std::set<std::string> now = currentUris();
    rewatch(); // new folders (a first record of a target) are watched from now on
    if (now == m_known)
        return;
    m_known = std::move(now);
    Q_EMIT listChanged();
}

void ResourceWatcher::rewatch()
{
    // The root (LEADERBOARD.md, results/ and profiles/ appearing), results/ and each of its
    // folders, and profiles/ with its subfolders: where McpResources looks.
    QStringList dirs{m_root};
    const QString results = QDir(m_root).filePath(QStringLiteral("results"));
    if (QFileInfo(results).isDir()) {
        dirs.append(results);
        const QStringList targets = QDir(results).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &t : targets)
            dirs.append(QDir(results).filePath(t));
    }
    const QString profiles = QDir(m_root).filePath(QStringLiteral("profiles"));
    if (QFileInfo(profiles).isDir()) {
        dirs.append(profiles);
        QDirIterator it(profiles, QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
        while (it.hasNext())
            dirs.append(it.next());
    }
    const QStringList watched = m_watcher.directories();
    QStringList add;
    for (const QString &d : std::as_const(dirs)) {
        if (!watched.contains(d))
            add.append(d);
    }
    if (!add.isEmpty())
        m_watcher.addPaths(add); // inotify may be unavailable; job ends still poke
}

} // namespace hotkernel
