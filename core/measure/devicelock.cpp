// SPDX-License-Identifier: Apache-2.0
#include "measure/devicelock.h"

#include "base/usererror.h"
#include "session/jobguard.h"

#include <QCoroTimer>
#include <QDir>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hotkernel {

DeviceLock::~DeviceLock()
{
    release();
}

int DeviceLock::currentDevice()
{
    const QString visible =
        qEnvironmentVariable("CUDA_VISIBLE_DEVICES").section(QLatin1Char(','), 0, 0).trimmed();
    bool ok = false;
    const int index = visible.toInt(&ok);
    return ok && index >= 0 ? index : 0;
}

QString DeviceLock::lockPath(int device)
{
    // /tmp rather than $XDG_RUNTIME_DIR: the GPU is shared by every user of the machine.
    QString dir = qEnvironmentVariable("HOTKERNEL_LOCK_DIR");
    if (dir.isEmpty())
        dir = QDir::tempPath();
    return QDir(dir).filePath(QStringLiteral("hotkernel-gpu%1.lock").arg(device));
}

bool DeviceLock::open(int device)
{
    const QString path = lockPath(device);
    if (m_fd >= 0 && m_path == path)
        return true;
    release();
    m_path = path;
    const QByteArray file = QFile::encodeName(m_path);
    // Open an existing file read-only first: in a sticky /tmp, O_CREAT on another user's file is
    // refused (fs.protected_regular), and flock needs no write access.
    m_fd = ::open(file.constData(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0 && errno == ENOENT) {
        m_fd = ::open(file.constData(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (m_fd >= 0)
            ::fchmod(m_fd, 0666);
        else if (errno == EEXIST)
            m_fd = ::open(file.constData(), O_RDONLY | O_CLOEXEC);
    }
    return m_fd >= 0;
}

bool DeviceLock::tryAcquire(int device)
{
    if (m_held && m_path == lockPath(device))
        return true;
    if (!open(device))
        throw UserError(
            QStringLiteral("cannot open the GPU lock file %1 (%2). Set HOTKERNEL_LOCK_DIR to a directory "
                           "every hotkernel on this machine can write.")
                .arg(m_path, QString::fromLocal8Bit(std::strerror(errno))));
    if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0) {
        m_held = true;
        return true;
    }
    return false;
}

QCoro::Task<bool> DeviceLock::acquire(int device, Job *job, std::function<void(const QString &)> onWait,
                                      std::chrono::milliseconds retryEvery)
{
    const JobGuard guard(job);
    bool told = false;
    while (!tryAcquire(device)) {
        if (guard.stopped())
            co_return false;
        if (!told && onWait) {
            told = true;
            onWait(QStringLiteral("waiting for GPU %1: another hotkernel process is timing on it (%2)")
                       .arg(device)
                       .arg(m_path));
        }
        co_await QCoro::sleepFor(retryEvery);
    }
    co_return true;
}

void DeviceLock::release()
{
    if (m_fd >= 0) {
        if (m_held)
            ::flock(m_fd, LOCK_UN);
        ::close(m_fd);
    }
    m_fd = -1;
    m_held = false;
}

} // namespace hotkernel
