// SPDX-License-Identifier: Apache-2.0
#include "inspect/cudatools.h"

#include "base/usererror.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace hotkernel {

QString CudaTools::find(const QString &tool, const QString &variable, QStringList *tried)
{
    QStringList looked;
    const auto done = [&](const QString &path) {
        if (tried)
            *tried = looked;
        return path;
    };
    if (!variable.isEmpty()) {
        const QString fromVariable = qEnvironmentVariable(variable.toUtf8().constData());
        if (!fromVariable.isEmpty()) {
            looked.append(QStringLiteral("$%1=%2").arg(variable, fromVariable));
            const QFileInfo info(fromVariable);
            if (info.isFile() && info.isExecutable())
                return done(info.absoluteFilePath());
        }
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
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable())
            return done(info.absoluteFilePath());
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
                       "wheel that ships %1), put its bin directory on PATH or set CUDA_HOME")
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
    const QString appDir = QCoreApplication::instance() ? QCoreApplication::applicationDirPath() : QString();
    if (!appDir.isEmpty()) {
        candidates.append(appDir + QStringLiteral("/libhotkernel_tracer.so"));
        candidates.append(QDir::cleanPath(appDir + QStringLiteral("/../lib/libhotkernel_tracer.so")));
    }
    if (tried)
        *tried = candidates;
    for (const QString &candidate : candidates) {
        if (QFileInfo(candidate).isFile())
            return QFileInfo(candidate).absoluteFilePath();
    }
    return {};
}

} // namespace hotkernel
