// SPDX-License-Identifier: Apache-2.0
#include "remote/remoteshell.h"

#include "process/processspec.h"
#include "process/supervisor.h"

#include <QDir>
#include <QProcess>

namespace hotkernel {

RemoteShell::RemoteShell(QString localRoot, QString configuredPython)
    : m_localRoot(QDir::cleanPath(localRoot)), m_configuredPython(std::move(configuredPython))
{}

QString RemoteShell::remotePython() const
{
    if (!m_python.isEmpty())
        return m_python;
    return m_configuredPython.isEmpty() ? QStringLiteral("python3") : m_configuredPython;
}

QString RemoteShell::supervisorPath() const
{
    return m_remoteWorkdir + QStringLiteral("/.hotkernel/hotkernel-remote-supervise.py");
}

QString RemoteShell::remotePath(const QString &localPath) const
{
    const QString clean = QDir::cleanPath(localPath);
    if (m_remoteWorkdir.isEmpty())
        return clean;
    if (clean == m_localRoot)
        return m_remoteWorkdir;
    if (clean.startsWith(m_localRoot + QLatin1Char('/')))
        return m_remoteWorkdir + clean.mid(m_localRoot.size());
    return localPath;
}

QString RemoteShell::localPath(const QString &remotePath) const
{
    const QString clean = QDir::cleanPath(remotePath);
    if (m_remoteWorkdir.isEmpty())
        return {};
    if (clean == m_remoteWorkdir)
        return m_localRoot;
    if (clean.startsWith(m_remoteWorkdir + QStringLiteral("/.hotkernel/")))
        return {};
    if (clean.startsWith(m_remoteWorkdir + QLatin1Char('/')))
        return m_localRoot + clean.mid(m_remoteWorkdir.size());
    return {};
}

QString RemoteShell::remoteCommand(const QString &program, const QStringList &arguments,
                                   const QString &workingDirectory, const QProcessEnvironment &environment,
                                   bool keepOnEndOfInput, const QStringList &supervisorOptions) const
{
    const QString dir = workingDirectory.isEmpty() ? m_remoteWorkdir : remotePath(workingDirectory);
    QStringList words{QStringLiteral("exec"), shellQuote(remotePython()), shellQuote(supervisorPath())};
    if (keepOnEndOfInput)
        words << QStringLiteral("--keep-on-eof");
    for (const QString &option : supervisorOptions)
        words << shellQuote(option);
    words << QStringLiteral("--");
    const QStringList keys = environment.keys();
    if (!keys.isEmpty()) {
        words << QStringLiteral("env");
        for (const QString &key : keys) {
            // Paths and path lists (PYTHONPATH) under the session's directory, as the host sees them.
            QStringList parts = environment.value(key).split(QLatin1Char(':'));
            for (QString &part : parts)
                part = part.startsWith(QLatin1Char('/')) ? remotePath(part) : part;
            words << shellQuote(key + QLatin1Char('=') + parts.join(QLatin1Char(':')));
        }
    }
    words << shellQuote(program);
    for (const QString &a : arguments)
        words << shellQuote(remotePath(a));
    return QStringLiteral("cd ") + shellQuote(dir) + QStringLiteral(" && ") + words.join(QLatin1Char(' '));
}

void RemoteShell::wrap(ProcessSpec &spec, bool keepOnEndOfInput, const QStringList &supervisorOptions) const
{
    const QString command = remoteCommand(spec.program, spec.arguments, spec.workingDirectory,
                                          spec.extraEnvironment, keepOnEndOfInput, supervisorOptions);
    spec.program = program();
    spec.arguments = commandArguments(command);
    spec.extraEnvironment = QProcessEnvironment();
    spec.workingDirectory = m_localRoot;
}

void RemoteShell::wrap(QProcess &process, const QProcessEnvironment &environment,
                       const QStringList &supervisorOptions) const
{
    const QString command = remoteCommand(process.program(), process.arguments(), process.workingDirectory(),
                                          environment, false, supervisorOptions);
    process.setProgram(program());
    process.setArguments(commandArguments(command));
    process.setWorkingDirectory(m_localRoot);
}

void RemoteShell::removeLater(const QString &remotePath) const
{
    if (remotePath.isEmpty())
        return;
    // Fire and forget: a leftover directory below .hotkernel costs nothing but space.
    // No parent: it may outlive its caller (a session that ends right after its verify); its
    // supervisor's lifeline still ends it with hotkernel, and the next probe sweeps what is left.
    auto *process = new QProcess;
    process->setProgram(program());
    process->setArguments(commandArguments(QStringLiteral("rm -rf -- ") + shellQuote(remotePath)));
    process->setStandardInputFile(QProcess::nullDevice());
    Supervisor::wrap(*process);
    QObject::connect(process, &QProcess::finished, process, &QObject::deleteLater);
    QObject::connect(process, &QProcess::errorOccurred, process, [process](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            process->deleteLater();
    });
    process->start();
}

} // namespace hotkernel
