// SPDX-License-Identifier: Apache-2.0
#include "measure/devicelock.h"

#include "base/boundedfile.h"
#include "base/jobguard.h"
#include "base/usererror.h"
#include "process/runtimedir.h"

#include <QCoroTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

QString DeviceLock::lockPath(int device, QString *error)
{
    QString dir = qEnvironmentVariable("HOTKERNEL_LOCK_DIR");
    if (dir.isEmpty())
        dir = RuntimeDir::path(error);
    if (dir.isEmpty())
        return {};
    return QDir(dir).filePath(QStringLiteral("hotkernel-gpu%1.lock").arg(device));
}

bool DeviceLock::needsLock(const Json &readyLine)
{
    return stringField(readyLine, "device") != QLatin1String("cpu");
}

bool DeviceLock::open(int device)
{
    QString error;
    const QString path = lockPath(device, &error);
    if (path.isEmpty())
        throw UserError(QStringLiteral("cannot take the GPU lock: %1").arg(error));
    if (m_fd >= 0 && m_path == path)
        return true;
    release();
    m_path = path;
    m_fd = RuntimeDir::openPrivateFile(m_path, &error);
    if (m_fd < 0)
        throw UserError(QStringLiteral("cannot take the GPU lock: %1").arg(error));
    return true;
}

bool DeviceLock::tryAcquire(int device)
{
    if (m_held && m_path == lockPath(device))
        return true;
    open(device);
    if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0) {
        m_held = true;
        return true;
    }
    return false;
}

long long DeviceLock::flockHolder(const QByteArray &procLocks, quint64 deviceMajor, quint64 deviceMinor,
                                  quint64 inode)
{
    // "1: FLOCK  ADVISORY  WRITE 20580 fe:00:10953442 0 EOF"; waiters read "1: -> FLOCK ...".
    for (const QByteArray &line : procLocks.split('\n')) {
        const QList<QByteArray> f = line.simplified().split(' ');
        if (f.size() < 6 || f.at(1) != "FLOCK")
            continue;
        const QList<QByteArray> id = f.at(5).split(':');
        if (id.size() != 3)
            continue;
        bool ok[4] = {};
        const quint64 major = id.at(0).toULongLong(&ok[0], 16);
        const quint64 minor = id.at(1).toULongLong(&ok[1], 16);
        const quint64 node = id.at(2).toULongLong(&ok[2]);
        const long long pid = f.at(4).toLongLong(&ok[3]);
        if (ok[0] && ok[1] && ok[2] && ok[3] && major == deviceMajor && minor == deviceMinor && node == inode)
            return pid;
    }
    return 0;
}

long long DeviceLock::holderPid() const
{
    struct stat st = {};
    if (m_fd < 0 || ::fstat(m_fd, &st) != 0)
        return 0;
    const BoundedFile::Read locks = BoundedFile::read(QStringLiteral("/proc/locks"), BoundedFile::kJsonLimit);
    if (!locks.ok())
        return 0;
    return flockHolder(locks.bytes, major(st.st_dev), minor(st.st_dev), st.st_ino);
}

QCoro::Task<bool> DeviceLock::acquire(int device, Job *job, std::function<void(const QString &)> onWait,
                                      std::chrono::milliseconds retryEvery,
                                      std::chrono::milliseconds patience)
{
    const JobGuard guard(job);
    QElapsedTimer waited;
    waited.start();
    long long toldHolder = -1;
    while (!tryAcquire(device)) {
        if (guard.stopped())
            co_return false;
        const long long holder = holderPid();
        const QString who =
            holder > 0 ? QStringLiteral("pid %1").arg(holder) : QStringLiteral("an unknown pid");
        if (patience.count() > 0 && waited.elapsed() >= patience.count())
            throw UserError(QStringLiteral("GPU %1 was still held by %2 (another hotkernel process of yours) "
                                           "after %3 s, this job's timeout; lock file %4. Wait for that job, "
                                           "end it, or raise timeout_s.")
                                .arg(device)
                                .arg(who)
                                .arg(patience.count() / 1000.0)
                                .arg(m_path));
        if (onWait && holder != toldHolder) {
            toldHolder = holder;
            onWait(QStringLiteral("waiting for the GPU, held by %1 (another hotkernel process of yours is "
                                  "timing on GPU %2; lock file %3)")
                       .arg(who)
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
