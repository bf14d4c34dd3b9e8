// SPDX-License-Identifier: Apache-2.0
#include "mcp/mcpresources.h"

#include "base/boundedfile.h"
#include "mcp/mcperror.h"
#include "mcp/mcpguide.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

namespace hotkernel {

namespace {
const QString LeaderboardFile = QStringLiteral("LEADERBOARD.md");
const QString ResultsDir = QStringLiteral("results");
const QString ProfilesDir = QStringLiteral("profiles");
// Reports above this are better opened in the window or with ncu itself than pasted to a model.
constexpr qint64 MaxReadBytes = 32 * 1024 * 1024;

bool isText(const QString &mimeType)
{
    return mimeType.startsWith(QLatin1String("text/")) || mimeType == QLatin1String("application/json");
}

Json describe(const QString &root, const QString &absolutePath, const QString &description)
{
    const QFileInfo info(absolutePath);
    const QString relative = QDir(root).relativeFilePath(absolutePath);
    return Json{{"uri", toStd(McpResources::uriFor(relative))},
                {"name", toStd(relative)},
                {"description", toStd(description)},
                {"mimeType", toStd(McpResources::mimeTypeFor(relative))},
                {"size", info.size()}};
}
} // namespace

QString McpResources::uriFor(const QString &relativePath)
{
    return uriScheme() + relativePath;
}

QString McpResources::mimeTypeFor(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("json"))
        return QStringLiteral("application/json");
    if (suffix == QLatin1String("md"))
        return QStringLiteral("text/markdown");
    if (suffix == QLatin1String("csv"))
        return QStringLiteral("text/csv");
    if (suffix == QLatin1String("txt") || suffix == QLatin1String("log") || suffix == QLatin1String("sass") ||
        suffix == QLatin1String("ptx"))
        return QStringLiteral("text/plain");
    return QStringLiteral("application/octet-stream");
}

Json McpResources::list() const
{
    Json resources = Json::array();
    // The skill comes with the binary, so an agent has it in any working directory.
    const QString skill = McpGuide::skillText();
    resources.push_back(
        Json{{"uri", toStd(McpGuide::skillUri())},
             {"name", "skills/kernel-speedrun/SKILL.md"},
             {"title", "The kernel-speedrun skill"},
             {"description", "The hotkernel loop, step by step (also the prompt kernel-speedrun)."},
             {"mimeType", "text/markdown"},
             {"size", skill.toUtf8().size()}});
    const QString root = m_workDir.root();
    const QString leaderboard = m_workDir.absolute(LeaderboardFile);
    if (QFileInfo(leaderboard).isFile() && m_workDir.contains(leaderboard))
        resources.push_back(describe(root, leaderboard,
                                     QStringLiteral("The leaderboard: best verified speedup per target.")));

    QDir results(m_workDir.absolute(ResultsDir));
    const QStringList targets = results.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString &target : targets) {
        QDir targetDir(results.filePath(target));
        const QStringList files = targetDir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QString &file : files) {
            const QString path = targetDir.filePath(file);
            if (!m_workDir.contains(path))
                continue;
            // results/calibration/ holds `hotkernel calibrate` runs, not a target's verify logs.
            const QString what = target == QLatin1String("calibration")
                                     ? QStringLiteral("A measured calibration of this card's ceilings.")
                                     : QStringLiteral("A recorded verify result of target %1.").arg(target);
            resources.push_back(describe(root, path, what));
        }
    }

    const QString profiles = m_workDir.absolute(ProfilesDir);
    if (QFileInfo(profiles).isDir()) {
        QStringList paths;
        QDirIterator it(profiles, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            paths.append(it.next());
        paths.sort();
        for (const QString &path : std::as_const(paths)) {
            if (m_workDir.contains(path))
                resources.push_back(describe(root, path, QStringLiteral("A saved profile report.")));
        }
    }
    return resources;
}

QString McpResources::pathFor(const QString &uri) const
{
    if (!uri.startsWith(uriScheme())) {
        throw McpError(
            McpError::InvalidParams,
            QStringLiteral("'%1' is not a hotkernel resource URI: they start with %2 (see resources/list).")
                .arg(uri, uriScheme()));
    }
    const QString relative = uri.mid(uriScheme().size());
    const QStringList parts = relative.split(QLatin1Char('/'));
    const bool allowedPlace =
        relative == LeaderboardFile ||
        (parts.size() == 3 && parts[0] == ResultsDir && parts[2].endsWith(QLatin1String(".json"))) ||
        (parts.size() >= 2 && parts[0] == ProfilesDir);
    const bool escapes = relative.isEmpty() || relative.startsWith(QLatin1Char('/')) ||
                         relative.contains(QLatin1Char('\\')) || parts.contains(QStringLiteral("..")) ||
                         parts.contains(QStringLiteral(".")) || parts.contains(QString());
    if (escapes || !allowedPlace || !m_workDir.contains(relative)) {
        throw McpError(
            McpError::InvalidParams,
            QStringLiteral("'%1' is not readable: resources are LEADERBOARD.md, results/<target>/<file>.json "
                           "and profiles/<file> inside the working directory %2 (no '..', no symlinks "
                           "leading out). Use a URI from resources/list.")
                .arg(uri, m_workDir.root()),
            Json{{"uri", toStd(uri)}});
    }
    const QString path = m_workDir.absolute(relative);
    if (!QFileInfo(path).isFile()) {
        throw McpError(McpError::ResourceNotFound,
                       QStringLiteral("Resource not found: %1. Use a URI from resources/list.").arg(uri),
                       Json{{"uri", toStd(uri)}});
    }
    return path;
}

Json McpResources::read(const QString &uri) const
{
    if (uri == McpGuide::skillUri()) {
        return Json::array({Json{
            {"uri", toStd(uri)}, {"mimeType", "text/markdown"}, {"text", toStd(McpGuide::skillText())}}});
    }
    const QString path = pathFor(uri);
    const BoundedFile::Read file = BoundedFile::read(path, MaxReadBytes);
    if (file.size > MaxReadBytes) {
        throw McpError(
            McpError::InvalidParams,
            uri + QStringLiteral(" is ") + QString::number(file.size / (1024 * 1024)) +
                QStringLiteral(" MB, more than the ") + QString::number(MaxReadBytes / (1024 * 1024)) +
                QStringLiteral(" MB a resource read returns; open it in the hotkernel window or with its own "
                               "tool instead."));
    }
    if (!file.ok()) {
        throw McpError(McpError::ResourceNotFound,
                       uri + QLatin1Char(' ') + file.error +
                           QStringLiteral(": read one that resources/list names."),
                       Json{{"uri", toStd(uri)}});
    }
    const QByteArray &bytes = file.bytes;
    const QString mimeType = mimeTypeFor(path);
    Json item{{"uri", toStd(uri)}, {"mimeType", toStd(mimeType)}};
    if (isText(mimeType))
        item["text"] = toStd(QString::fromUtf8(bytes));
    else
        item["blob"] = bytes.toBase64().toStdString();
    return Json::array({item});
}

} // namespace hotkernel
