// SPDX-License-Identifier: Apache-2.0
#include "process/supervisor.h"

#include "base/boundedfile.h"
#include "base/logging.h"
#include "process/nativehelpers.h"
#include "process/writeconfinement.h"

#include <QFile>
#include <QProcess>

#include <atomic>
#include <fcntl.h>
#include <unistd.h>

namespace hotkernel {

namespace {
constexpr char StartFailurePrefix[] = "hotkernel-supervise: cannot start ";
constexpr int StartFailureExitCode = 127;
} // namespace

QString Supervisor::helperFileName()
{
    return QStringLiteral("hotkernel-supervise");
}

QString Supervisor::helperPath()
{
    static const QString path = NativeHelpers::locate(helperFileName());
    return path;
}

int Supervisor::lifelineFd()
{
    // Made once and never closed: the write end closes only when this process ends, which is
    // exactly what the supervisors wait for. Both ends close-on-exec; the child clears the flag on
    // the read end for the supervisor alone (see wrap()).
    static const int readEnd = [] {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            return -1;
        return fds[0];
    }();
    return readEnd;
}

void Supervisor::wrap(QProcess &process)
{
    wrap(process, nullptr);
}

void Supervisor::wrap(QProcess &process, WriteConfinement *confinement, QList<int> inherited)
{
    const QString helper = helperPath();
    const int lifeline = lifelineFd();
    if (helper.isEmpty() || lifeline < 0) {
        if (confinement)
            confinement->notSupervised(helperFileName() + QStringLiteral(" was not found beside hotkernel"));
        static std::atomic_bool warned{false};
        if (!warned.exchange(true))
            qCWarning(lcProcess).noquote()
                << helperFileName()
                << "not found beside hotkernel (set HOTKERNEL_NATIVE_DIR): child processes "
                << "run without it, so one that calls setsid can outlive hotkernel";
        process.setChildProcessModifier([inherited] {
            ::setpgid(0, 0);
            for (int fd : inherited)
                ::fcntl(fd, F_SETFD, 0);
        });
        return;
    }
    QStringList arguments{QStringLiteral("--lifeline=%1").arg(lifeline)};
    if (confinement) {
        arguments += confinement->supervisorArguments();
        if (confinement->reportWriteEnd() >= 0)
            inherited << confinement->reportWriteEnd();
    }
    arguments << QStringLiteral("--") << process.program();
    arguments += process.arguments();
    process.setProgram(helper);
    process.setArguments(arguments);
    inherited << lifeline;
    process.setChildProcessModifier([inherited] {
        ::setpgid(0, 0);
        for (int fd : inherited)
            ::fcntl(fd, F_SETFD, 0);
    });
}

bool Supervisor::isSupervisor(long long pid)
{
    if (pid <= 0)
        return false;
    const BoundedFile::Read comm = BoundedFile::read(QStringLiteral("/proc/%1/comm").arg(pid), 4096);
    if (!comm.ok())
        return false;
    // The kernel keeps the first 15 bytes of the name.
    return comm.bytes.trimmed() == helperFileName().toLatin1().left(15);
}

std::optional<QString> Supervisor::startFailure(int exitCode, QByteArray &standardError)
{
    if (exitCode != StartFailureExitCode)
        return std::nullopt;
    const qsizetype at = standardError.lastIndexOf(StartFailurePrefix);
    if (at < 0 || (at > 0 && standardError.at(at - 1) != '\n'))
        return std::nullopt;
    qsizetype end = standardError.indexOf('\n', at);
    if (end < 0)
        end = standardError.size();
    const QByteArray line = standardError.mid(at, end - at);
    standardError.remove(at, end - at + (end < standardError.size() ? 1 : 0));
    // "cannot start PROGRAM: REASON" -> "REASON", as QProcess's errorString would say it.
    const qsizetype colon = line.lastIndexOf(": ");
    return QString::fromLocal8Bit(colon >= 0 ? line.mid(colon + 2) : line);
}

} // namespace hotkernel
