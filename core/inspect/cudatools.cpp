// SPDX-License-Identifier: Apache-2.0
#include "inspect/cudatools.h"

#include "base/usererror.h"
#include "process/nativehelpers.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace hotkernel {

QStringList CudaTools::interpreterSitePackages()
{
    QStringList interpreters;
    for (const char *variable : {"HOTKERNEL_PYTHON"}) {
        const QString v = qEnvironmentVariable(variable);
        if (!v.isEmpty())
            interpreters.append(v);
    }
    for (const char *prefixVariable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
        const QString v = qEnvironmentVariable(prefixVariable);
        if (!v.isEmpty())
            interpreters.append(v + QStringLiteral("/bin/python"));
    }
    for (const QString &name : {QStringLiteral("python3"), QStringLiteral("python")}) {
        const QString onPath = QStandardPaths::findExecutable(name);
        if (!onPath.isEmpty())
            interpreters.append(onPath);
    }
    QStringList out;
    for (const QString &interpreter : std::as_const(interpreters)) {
        // PREFIX/bin/python -> PREFIX/lib/python3.*/site-packages (a venv's python is a link to the
        // system one: the link's own folder names the venv, so it is not resolved).
        const QDir prefix(QFileInfo(interpreter).absoluteDir().filePath(QStringLiteral("..")));
        const QDir lib(prefix.filePath(QStringLiteral("lib")));
        const QStringList versions = lib.entryList(
            {QStringLiteral("python3*")}, QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
        for (const QString &version : versions) {
            const QString site = QDir::cleanPath(lib.filePath(version + QStringLiteral("/site-packages")));
            if (QFileInfo(site).isDir() && !out.contains(site))
                out.append(site);
        }
    }
    return out;
}

QStringList CudaTools::searchDirectories()
{
    QStringList dirs;
    for (const QString &dir :
         qEnvironmentVariable("HOTKERNEL_TOOL_DIRS").split(QLatin1Char(':'), Qt::SkipEmptyParts))
        dirs.append(dir);
    for (const QString &site : interpreterSitePackages()) {
        dirs.append(site + QStringLiteral("/triton/backends/nvidia/bin"));
        const QDir nvidia(site + QStringLiteral("/nvidia"));
        for (const QString &package : nvidia.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            dirs.append(nvidia.filePath(package + QStringLiteral("/bin")));
    }
    // Nsight installs keep one folder per version: the newest first.
    const QDir compute(QStringLiteral("/opt/nvidia/nsight-compute"));
    for (const QString &version :
         compute.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed))
        dirs.append(compute.filePath(version));
    const QDir systems(QStringLiteral("/opt/nvidia/nsight-systems"));
    for (const QString &version :
         systems.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed))
        dirs.append(systems.filePath(version + QStringLiteral("/bin")));
    QStringList existing;
    for (const QString &dir : std::as_const(dirs)) {
        if (QFileInfo(dir).isDir() && !existing.contains(dir))
            existing.append(dir);
    }
    return existing;
}

QString CudaTools::find(const QString &tool, const QString &variable, QStringList *tried)
{
    QStringList looked;
    const auto done = [&](const QString &path) {
        if (tried)
            *tried = looked;
        return path;
    };
    const auto executable = [](const QString &candidate) {
        const QFileInfo info(candidate);
        return info.isFile() && info.isExecutable();
    };
    if (!variable.isEmpty()) {
        const QString fromVariable = qEnvironmentVariable(variable.toUtf8().constData());
        if (!fromVariable.isEmpty()) {
            looked.append(QStringLiteral("$%1=%2").arg(variable, fromVariable));
            if (executable(fromVariable))
                return done(QFileInfo(fromVariable).absoluteFilePath());
        }
    }
    for (const QString &dir : searchDirectories()) {
        const QString candidate = dir + QLatin1Char('/') + tool;
        looked.append(candidate);
        if (executable(candidate))
            return done(QFileInfo(candidate).absoluteFilePath());
    }
    looked.append(QStringLiteral("PATH"));
    const QString onPath = QStandardPaths::findExecutable(tool);
    if (!onPath.isEmpty())
        return done(onPath);
    QStringList dirs;
    const QString cudaHome = qEnvironmentVariable("CUDA_HOME");
    if (!cudaHome.isEmpty())
        dirs.append(cudaHome + QStringLiteral("/bin"));
    dirs.append(QStringLiteral("/usr/local/cuda/bin"));
    for (const QString &dir : dirs) {
        const QString candidate = dir + QLatin1Char('/') + tool;
        looked.append(candidate);
        if (executable(candidate))
            return done(QFileInfo(candidate).absoluteFilePath());
    }
    return done({});
}

QString CudaTools::require(const QString &tool, const QString &variable)
{
    QStringList tried;
    const QString path = find(tool, variable, &tried);
    if (!path.isEmpty())
        return path;
    QString message =
        QStringLiteral("%1 was not found (looked in: %2). Install the CUDA Toolkit (or the NVIDIA "
                       "wheel that ships %1 in the torch interpreter's environment), put its bin directory "
                       "on PATH or in "
                       "HOTKERNEL_TOOL_DIRS, or set CUDA_HOME")
            .arg(tool, tried.join(QStringLiteral(", ")));
    if (!variable.isEmpty())
        message += QStringLiteral(", or set %1 to the %2 executable").arg(variable, tool);
    throw UserError(message + QLatin1Char('.'));
}

QString CudaTools::tracerLibrary(QStringList *tried)
{
    QStringList candidates;
    const QString fromVariable = qEnvironmentVariable("HOTKERNEL_TRACER");
    if (!fromVariable.isEmpty())
        candidates.append(fromVariable);
    // The same folders as every other helper (the build tree's and an install's lib/hotkernel/).
    for (const QString &dir : NativeHelpers::searchDirectories())
        candidates.append(QDir(dir).filePath(NativeHelpers::tracerFileName()));
    if (tried)
        *tried = candidates;
    for (const QString &candidate : candidates) {
        if (QFileInfo(candidate).isFile())
            return QFileInfo(candidate).absoluteFilePath();
    }
    return {};
}

} // namespace hotkernel
