// SPDX-License-Identifier: Apache-2.0
#include "base/workdir.h"

#include "base/usererror.h"

#include <QFileInfo>

namespace hotkernel {

namespace {
// Canonical form of a path whose tail may not exist yet: resolve the longest existing
// prefix (symlinks included), then append the rest lexically.
QString canonicalPrefixResolved(const QString &absolutePath)
{
    QString existing = QDir::cleanPath(absolutePath);
    QStringList rest;
    while (!existing.isEmpty() && !QFileInfo::exists(existing)) {
        const int slash = existing.lastIndexOf(QLatin1Char('/'));
        if (slash < 0)
            break;
        rest.prepend(existing.mid(slash + 1));
        existing = slash == 0 ? QStringLiteral("/") : existing.left(slash);
    }
    QString canonical = QFileInfo(existing).canonicalFilePath();
    if (canonical.isEmpty())
        canonical = existing;
    for (const QString &part : std::as_const(rest))
        canonical = QDir::cleanPath(canonical + QLatin1Char('/') + part);
    return canonical;
}
} // namespace

WorkDir::WorkDir(const QString &root)
{
    const QString canonical = QFileInfo(root).canonicalFilePath();
    m_root = canonical.isEmpty() ? QDir::cleanPath(QDir(root).absolutePath()) : canonical;
}

QString WorkDir::absolute(const QString &path) const
{
    if (QDir::isAbsolutePath(path))
        return QDir::cleanPath(path);
    return QDir::cleanPath(m_root + QLatin1Char('/') + path);
}

bool WorkDir::contains(const QString &path) const
{
    const QString resolved = canonicalPrefixResolved(absolute(path));
    return resolved == m_root || resolved.startsWith(m_root + QLatin1Char('/'));
}

QString WorkDir::requireInside(const QString &path, const QString &what) const
{
    if (!contains(path)) {
        throw UserError(QStringLiteral("%1 '%2' is outside the working directory %3 (symlinks resolved); "
                                       "hotkernel writes only inside it: pass a path under %3.")
                            .arg(what, path, m_root));
    }
    return absolute(path);
}

QString WorkDir::relative(const QString &path) const
{
    return QDir(m_root).relativeFilePath(absolute(path));
}

} // namespace hotkernel
