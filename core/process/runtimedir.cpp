// SPDX-License-Identifier: Apache-2.0
#include "process/runtimedir.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hotkernel {

namespace {
QString describeMode(mode_t mode)
{
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO");
    if (S_ISLNK(mode))
        return QStringLiteral("a symbolic link");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    if (S_ISDIR(mode))
        return QStringLiteral("a directory");
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return QStringLiteral("a device");
    return QStringLiteral("not a regular file");
}

QString systemError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

void set(QString *error, const QString &message)
{
    if (error)
        *error = message;
}
} // namespace

bool RuntimeDir::isPrivateDirectory(const QString &path, QString *error)
{
    struct stat st = {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0) {
        set(error, QStringLiteral("cannot use %1: %2").arg(path, systemError()));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        set(error,
            QStringLiteral("refusing %1: it is %2, not a directory; remove it, or set XDG_RUNTIME_DIR to "
                           "a directory only you can write")
                .arg(path, describeMode(st.st_mode)));
        return false;
    }
    if (st.st_uid != ::getuid()) {
        set(error, QStringLiteral("refusing %1: it belongs to user id %2, not to you (user id %3); another "
                                  "user made it. Remove it (as root), or set XDG_RUNTIME_DIR to a directory "
                                  "only you can write")
                       .arg(path)
                       .arg(st.st_uid)
                       .arg(::getuid()));
        return false;
    }
    if ((st.st_mode & 077) != 0) {
        set(error,
            QStringLiteral("refusing %1: its mode is %2, so other users can reach what is inside; "
                           "run `chmod 700 %1`")
                .arg(path, QString::number(st.st_mode & 07777, 8).rightJustified(4, QLatin1Char('0'))));
        return false;
    }
    return true;
}

QString RuntimeDir::path(QString *error)
{
    const QString xdg = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!xdg.isEmpty() && QDir::isAbsolutePath(xdg) && isPrivateDirectory(xdg, nullptr))
        return QDir::cleanPath(xdg);
    const QString dir = QDir(QDir::tempPath()).filePath(QStringLiteral("hotkernel-%1").arg(::getuid()));
    const QByteArray name = QFile::encodeName(dir);
    if (::mkdir(name.constData(), 0700) != 0 && errno != EEXIST) {
        set(error,
            QStringLiteral("cannot create %1: %2; set XDG_RUNTIME_DIR to a directory only you can write")
                .arg(dir, systemError()));
        return {};
    }
    if (!isPrivateDirectory(dir, error))
        return {};
    return dir;
}

int RuntimeDir::openPrivateFile(const QString &path, QString *error)
{
    const QByteArray name = QFile::encodeName(path);
    // O_RDWR does not block on a FIFO either, but O_NONBLOCK says so for every file type. An
    // existing file is opened without O_CREAT, which a sticky directory refuses for another user's
    // file (fs.protected_regular) before we could say whose it is.
    // not a named file: the session's own runtime file, opened with the flags below.
    constexpr int Flags = O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC;
    int fd = ::open(name.constData(), Flags);
    for (int attempt = 0; fd < 0 && errno == ENOENT && attempt < 2; ++attempt) {
        fd = ::open(name.constData(), Flags | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno == EEXIST)
            fd = ::open(name.constData(), Flags); // made by someone else meanwhile
    }
    struct stat st = {};
    QString problem;
    if (fd < 0) {
        const int openError = errno;
        if (::lstat(name.constData(), &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != ::getuid())) {
            // Fall through to say what is there and whose it is.
        } else {
            errno = openError;
            set(error, QStringLiteral("cannot open %1: %2").arg(path, systemError()));
            return -1;
        }
    } else if (::fstat(fd, &st) != 0) {
        problem = QStringLiteral("cannot examine %1: %2").arg(path, systemError());
    }
    if (problem.isEmpty()) {
        if (!S_ISREG(st.st_mode))
            problem = QStringLiteral("refusing %1: it is %2, not a regular file; remove it")
                          .arg(path, describeMode(st.st_mode));
        else if (st.st_uid != ::getuid())
            problem =
                QStringLiteral("refusing %1: it belongs to user id %2, not to you (user id %3); remove it")
                    .arg(path)
                    .arg(st.st_uid)
                    .arg(::getuid());
    }
    if (!problem.isEmpty()) {
        if (fd >= 0)
            ::close(fd);
        set(error, problem);
        return -1;
    }
    return fd;
}

} // namespace hotkernel
