// SPDX-License-Identifier: Apache-2.0
#include "remote/syncset.h"

#include "base/boundedfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <set>

namespace hotkernel::SyncSet {

namespace {
// The same reading of imports as WorkerPool::contentKey: a module of the script's own folder.
QStringList referencedFiles(const QString &path, const QString &resolveDir)
{
    const BoundedFile::Read f = BoundedFile::read(path, 8 * 1024 * 1024);
    if (!f.ok())
        return {};
    const QString text = QString::fromUtf8(f.bytes);
    const QDir dir = resolveDir.isEmpty() ? QFileInfo(path).absoluteDir() : QDir(resolveDir);
    QStringList found;
    static const QRegularExpression importLine(
        QStringLiteral(R"(^\s*(?:from\s+([A-Za-z_][A-Za-z0-9_]*)|import\s+([A-Za-z_][A-Za-z0-9_]*)))"),
        QRegularExpression::MultilineOption);
    for (auto it = importLine.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        const QString module = m.captured(1).isEmpty() ? m.captured(2) : m.captured(1);
        found << dir.filePath(module + QStringLiteral(".py"))
              << dir.filePath(module + QStringLiteral("/__init__.py"));
    }
    // "./kernels.py:fn", "kernels.py" in a string: load_function and the target's reference/derive.
    static const QRegularExpression fileString(
        QStringLiteral(R"(["']((?:\.{1,2}/)?[A-Za-z0-9_./-]+\.py)(?::[^"']*)?["'])"));
    for (auto it = fileString.globalMatch(text); it.hasNext();)
        found << dir.filePath(it.next().captured(1));
    return found;
}
} // namespace

QStringList collect(const QString &root, const QStringList &scripts, QStringList *outside,
                    const QString &resolveDir)
{
    const QString base = QDir::cleanPath(QDir(root).absolutePath());
    std::set<QString> seen;
    std::set<QString> result;
    QStringList queue;
    std::set<QString> given;
    for (const QString &s : scripts) {
        queue << s;
        queue << QFileInfo(s).absoluteDir().filePath(QStringLiteral("_hotkernel_contract.py"));
        given.insert(QDir::cleanPath(QFileInfo(s).absoluteFilePath()));
    }
    while (!queue.isEmpty()) {
        const QString path = QDir::cleanPath(QFileInfo(queue.takeFirst()).absoluteFilePath());
        if (!seen.insert(path).second)
            continue;
        if (!QFileInfo(path).isFile())
            continue;
        if (path != base && !path.startsWith(base + QLatin1Char('/'))) {
            if (outside)
                outside->append(path);
            continue;
        }
        result.insert(path.mid(base.size() + 1));
        queue << referencedFiles(path, given.count(path) ? resolveDir : QString());
    }
    return QStringList(result.begin(), result.end());
}

} // namespace hotkernel::SyncSet
