// SPDX-License-Identifier: Apache-2.0
#include "demosession.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>

#include <memory>

namespace hotkernel::DemoSession {

namespace {

const QString kRoot = QStringLiteral(":/hotkernel-demo");

} // namespace

int dataFileCount()
{
    int count = 0;
    QDirIterator it(kRoot, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        if (!it.next().endsWith(QLatin1String("/MANIFEST.md")))
            ++count;
    }
    return count;
}

QString extract(QString *error)
{
    static std::unique_ptr<QTemporaryDir> dir;
    dir = std::make_unique<QTemporaryDir>(QDir::temp().filePath(QStringLiteral("hotkernel-demo-XXXXXX")));
    if (!dir->isValid()) {
        if (error)
            *error = QStringLiteral("cannot create a temporary directory for the demo: %1")
                         .arg(dir->errorString());
        return {};
    }
    QDirIterator it(kRoot, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString source = it.next();
        const QString target = QDir(dir->path()).filePath(source.mid(kRoot.size() + 1));
        QDir().mkpath(QFileInfo(target).absolutePath());
        // Resource files are read-only; the copies must be writable (the session saves there).
        if (!QFile::copy(source, target)) {
            if (error)
                *error = QStringLiteral("cannot copy the demo file %1 to %2").arg(source, target);
            return {};
        }
        QFile::setPermissions(target, QFile::permissions(target) | QFileDevice::WriteOwner);
    }
    return dir->path();
}

} // namespace hotkernel::DemoSession
