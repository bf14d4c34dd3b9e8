// SPDX-License-Identifier: Apache-2.0
// The files an agent may read through MCP resources: the kernel-speedrun skill (compiled in),
// LEADERBOARD.md, results/<target>/*.json (verify logs and calibrations) and
// saved profile reports under profiles/, all inside the working directory (symlinks resolved).
// Reads the disk on every call so the list is never stale. Main thread; the files are small.
#pragma once

#include "base/json.h"
#include "base/workdir.h"

namespace hotkernel {

class McpResources
{
public:
    explicit McpResources(WorkDir workDir) : m_workDir(std::move(workDir)) {}

    static QString uriScheme() { return QStringLiteral("hotkernel://"); }
    // The URI for a path relative to the working directory.
    static QString uriFor(const QString &relativePath);
    static QString mimeTypeFor(const QString &path);

    // resources/list "resources" array.
    Json list() const;
    // resources/read "contents" array; throws McpError for a bad, escaping or unknown URI.
    Json read(const QString &uri) const;

private:
    QString pathFor(const QString &uri) const; // absolute path, checked; throws McpError

    WorkDir m_workDir;
};

} // namespace hotkernel
