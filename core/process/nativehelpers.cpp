// SPDX-License-Identifier: Apache-2.0
#include "process/nativehelpers.h"

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

QString NativeHelpers::report()
{
    QString text;
    for (const QString &name :
         {QStringLiteral("hotkernel-supervise"), tracerFileName(), calibrateFileName()}) {
        const QString path = locate(name);
        text += name + QStringLiteral(": ") + (path.isEmpty() ? QStringLiteral("not found") : path) +
                QLatin1Char('\n');
    }
    return text + QStringLiteral("looked in: ") + searchDirectories().join(QStringLiteral(", ")) +
           QLatin1Char('\n');
}

QString NativeHelpers::missingLibrary(const QByteArray &standardError)
{
    static const QByteArray marker("error while loading shared libraries: ");
    const qsizetype at = standardError.indexOf(marker);
    if (at < 0)
        return {};
    const qsizetype start = at + marker.size();
    const qsizetype end = standardError.indexOf(':', start);
    if (end <= start)
        return {};
    return QString::fromLocal8Bit(standardError.mid(start, end - start)).trimmed();
}

QString NativeHelpers::missingLibraryAdvice(const QString &helper, const QString &library)
{
    QString where;
    if (library.startsWith(QLatin1String("libcupti")))
        where = QStringLiteral("pip install nvidia-cuda-cupti");
    else if (library.startsWith(QLatin1String("libcublas")))
        where = QStringLiteral("pip install nvidia-cublas");
    else
        where = QStringLiteral("pip install nvidia-cuda-runtime");
    return QStringLiteral("%1 cannot start: the system has no %2, a CUDA 13 library that no Debian 12 "
                          "package provides. Install the CUDA Toolkit 13 and put its library folder on "
                          "the loader's path (LD_LIBRARY_PATH=/usr/local/cuda/lib64, or a file in "
                          "/etc/ld.so.conf.d/ and ldconfig), or install NVIDIA's wheel into the torch "
                          "interpreter's environment (%3) and put its nvidia/*/lib folder on "
                          "LD_LIBRARY_PATH.")
        .arg(helper, library, where);
}

} // namespace hotkernel
