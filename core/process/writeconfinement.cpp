// SPDX-License-Identifier: Apache-2.0
#include "process/writeconfinement.h"

#include "base/pendingbytes.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace hotkernel {

namespace {
// The supervisor's line is short ("landlock ABI 7", or a reason naming one directory).
constexpr qsizetype kReportLimit = 8192;
} // namespace

WriteConfinement::WriteConfinement(QStringList writable) : m_writable(std::move(writable))
{
    int fds[2];
    // Both ends close-on-exec: only the supervisor of this process may inherit the write end.
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        m_result = QStringLiteral("none: cannot make the report pipe (%1)")
                       .arg(QString::fromLocal8Bit(std::strerror(errno)));
        return;
    }
    m_readEnd = fds[0];
    m_writeEnd = fds[1];
}

WriteConfinement::~WriteConfinement()
{
    for (int fd : {m_readEnd, m_writeEnd})
        if (fd >= 0)
            ::close(fd);
}

QStringList WriteConfinement::supervisorArguments() const
{
    if (m_writeEnd < 0)
        return {};
    QStringList arguments;
    for (const QString &dir : m_writable)
        arguments << QStringLiteral("--confine-writes=") + dir;
    arguments << QStringLiteral("--confine-report=%1").arg(m_writeEnd);
    return arguments;
}

void WriteConfinement::started()
{
    if (m_writeEnd >= 0)
        ::close(m_writeEnd);
    m_writeEnd = -1;
}

void WriteConfinement::notSupervised(const QString &reason)
{
    m_result = QStringLiteral("none: ") + reason;
    started();
}

QString WriteConfinement::result()
{
    if (!m_result.isEmpty() || m_readEnd < 0)
        return m_result.isEmpty() ? QStringLiteral("none: no report") : m_result;
    QByteArray text; // empty when the supervisor wrote nothing (yet)
    readPendingBytes(m_readEnd, text, kReportLimit);
    ::close(m_readEnd);
    m_readEnd = -1;
    const QString line = QString::fromUtf8(text.left(text.indexOf('\n'))).trimmed();
    if (line.startsWith(QLatin1String("landlock ABI ")) || line.startsWith(QLatin1String("none: ")))
        m_result = line;
    else if (line.isEmpty())
        m_result = QStringLiteral("none: the supervisor reported nothing (an older hotkernel-supervise?)");
    else
        m_result = QStringLiteral("none: the supervisor's report was not understood");
    return m_result;
}

bool WriteConfinement::confined(const QString &result)
{
    return result.startsWith(QLatin1String("landlock ABI "));
}

} // namespace hotkernel
