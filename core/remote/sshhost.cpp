// SPDX-License-Identifier: Apache-2.0
#include "remote/sshhost.h"

#include "process/processspec.h"

#include <QDir>
#include <QProcess>

namespace hotkernel {

SshHost::SshHost(HostUrl url, QString controlPath, QString localRoot)
    : RemoteShell(std::move(localRoot), url.python), m_url(std::move(url)),
      m_controlPath(std::move(controlPath))
{}

QString SshHost::sshProgram()
{
    return qEnvironmentVariable("HOTKERNEL_SSH", QStringLiteral("ssh"));
}

QString SshHost::rsyncProgram()
{
    return qEnvironmentVariable("HOTKERNEL_RSYNC", QStringLiteral("rsync"));
}

QStringList SshHost::commonOptions() const
{
    // BatchMode: ssh never prompts (a prompt would hang a job with nobody to answer it); the
    // user's ~/.ssh/config applies as always. HOTKERNEL_SSH_CONFIG names another file (tests).
    QStringList o{QStringLiteral("-o"), QStringLiteral("BatchMode=yes"), QStringLiteral("-o"),
                  QStringLiteral("ControlPath=") + m_controlPath};
    if (const QString config = qEnvironmentVariable("HOTKERNEL_SSH_CONFIG"); !config.isEmpty())
        o << QStringLiteral("-F") << config;
    if (m_url.port > 0)
        o << QStringLiteral("-p") << QString::number(m_url.port);
    if (!m_url.user.isEmpty())
        o << QStringLiteral("-l") << m_url.user;
    return o;
}

QStringList SshHost::masterArguments() const
{
    // A foreground master (-N, no ControlPersist): it lives exactly as long as the session holds it,
    // under hotkernel-supervise like every child, so even a kill -9 of hotkernel ends it. A
    // backgrounded ControlPersist master would leave the supervisor's subtree, and be ended by it.
    // ServerAlive: a connection that silently died is noticed in 15 s, not at TCP's leisure.
    return QStringList{QStringLiteral("-M"), QStringLiteral("-N"),
                       QStringLiteral("-o"), QStringLiteral("ControlMaster=yes"),
                       QStringLiteral("-o"), QStringLiteral("ControlPersist=no"),
                       QStringLiteral("-o"), QStringLiteral("ConnectTimeout=20"),
                       QStringLiteral("-o"), QStringLiteral("ServerAliveInterval=5"),
                       QStringLiteral("-o"), QStringLiteral("ServerAliveCountMax=3")} +
           commonOptions() + QStringList{QStringLiteral("--"), m_url.host};
}

QStringList SshHost::commandArguments(const QString &remoteCommand) const
{
    return QStringList{QStringLiteral("-o"), QStringLiteral("ControlMaster=no")} + commonOptions() +
           QStringList{QStringLiteral("-T"), QStringLiteral("--"), m_url.host, remoteCommand};
}

QStringList SshHost::exitArguments() const
{
    return commonOptions() +
           QStringList{QStringLiteral("-O"), QStringLiteral("exit"), QStringLiteral("--"), m_url.host};
}

QString SshHost::rsyncShell() const
{
    QStringList parts{shellQuote(sshProgram()), QStringLiteral("-o"), QStringLiteral("ControlMaster=no")};
    for (const QString &o : commonOptions())
        parts.append(shellQuote(o));
    return parts.join(QLatin1Char(' '));
}

QString SshHost::destination() const
{
    return m_url.host;
}

QString SshHost::describeFailure(const QByteArray &stderrText) const
{
    const QString text = QString::fromLocal8Bit(stderrText);
    QString said;
    for (const QString &line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        if (!line.trimmed().isEmpty())
            said = line.trimmed(); // the last line ssh printed
    }
    const QString host = display();
    const QString portOption = m_url.port > 0 ? QStringLiteral(" -p %1").arg(m_url.port) : QString();
    const QString login = (m_url.user.isEmpty() ? QString() : m_url.user + QLatin1Char('@')) + m_url.host;
    const auto has = [&text](const char *needle) {
        return text.contains(QLatin1String(needle), Qt::CaseInsensitive);
    };
    QString why;
    if (has("Host key verification failed") || has("REMOTE HOST IDENTIFICATION HAS CHANGED") ||
        has("No ED25519 host key is known") || has("host key is not known"))
        why = QStringLiteral("ssh does not know the host key of %1 (or it changed). hotkernel never answers "
                             "ssh's questions (BatchMode): connect once yourself with `ssh%2 %3`, check "
                             "the fingerprint and accept it, then run again")
                  .arg(m_url.host, portOption, login);
    else if (has("Permission denied") || has("Too many authentication failures"))
        why =
            QStringLiteral("%1 refused the login. hotkernel cannot type a password (BatchMode): set up a key "
                           "(`ssh-copy-id%2 %3`) or load it into ssh-agent, and check that `ssh%2 %3 true` "
                           "works without a prompt")
                .arg(m_url.host, portOption, login);
    else if (has("Could not resolve hostname") || has("Name or service not known"))
        why = QStringLiteral("the name %1 does not resolve: check the spelling, or add a Host entry for it "
                             "to ~/.ssh/config")
                  .arg(m_url.host);
    else if (has("Connection refused") || has("timed out") || has("No route to host") ||
             has("Network is unreachable"))
        why =
            QStringLiteral("%1 cannot be reached: check that the machine is up and that sshd listens%2")
                .arg(m_url.host, m_url.port > 0 ? QStringLiteral(" on port %1").arg(m_url.port) : QString());
    else
        why = QStringLiteral("the connection to %1 was lost or could not be used: check the network and "
                             "that sshd runs there; the next call connects again")
                  .arg(m_url.host);
    return QStringLiteral("host %1: %2%3.")
        .arg(host, why, said.isEmpty() ? QString() : QStringLiteral(" (ssh said: %1)").arg(said));
}

} // namespace hotkernel
