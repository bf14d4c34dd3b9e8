// SPDX-License-Identifier: Apache-2.0
#include "inspect/nativehelpers.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace hotkernel {

QString NativeHelpers::tracerFileName()
{
    return QStringLiteral("libhotkernel_tracer.so");
}

QString NativeHelpers::calibrateFileName()
{
    return QStringLiteral("hotkernel-calibrate");
}

QStringList NativeHelpers::searchDirectories()
{
    QStringList dirs;
    const QString env = QString::fromLocal8Bit(qgetenv("HOTKERNEL_NATIVE_DIR"));
    if (!env.isEmpty())
        dirs.append(env);
    if (QCoreApplication::instance()) {
        dirs.append(QCoreApplication::applicationDirPath());
#ifdef HOTKERNEL_PRIVATE_LIBDIR_FROM_BIN
        // Installed: bin/hotkernel keeps the tracer in lib/hotkernel/ (packaging/CMakeLists.txt).
        dirs.append(QDir::cleanPath(QCoreApplication::applicationDirPath() + QLatin1Char('/') +
                                    QStringLiteral(HOTKERNEL_PRIVATE_LIBDIR_FROM_BIN)));
#endif
    }
#ifdef HOTKERNEL_NATIVE_BUILD_DIR
    // Tests and tools run from the build tree, where CMake puts the helpers beside hotkernel.
    dirs.append(QStringLiteral(HOTKERNEL_NATIVE_BUILD_DIR));
#endif
    dirs.removeDuplicates();
    return dirs;
}

QString NativeHelpers::locate(const QString &fileName)
{
    for (const QString &dir : searchDirectories()) {
        const QFileInfo fi(QDir(dir).filePath(fileName));
        if (fi.isFile())
            return fi.absoluteFilePath();
    }
    return {};
}

} // namespace hotkernel
