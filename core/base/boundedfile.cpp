// SPDX-License-Identifier: Apache-2.0
#include "base/boundedfile.h"

#include "base/usererror.h"

#include <QCryptographicHash>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <limits>

namespace hotkernel::BoundedFile {

namespace {

constexpr qint64 kChunk = 256 * 1024;

class Fd
{
public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

// Why open() failed, in words that follow the path.
QString openFailure(const QByteArray &name, int error, Links links)
{
    if (error == ELOOP && links == Links::Refuse)
        return QStringLiteral("is a symbolic link, and this file is read only as the file itself "
                              "(a link there means something replaced it)");
    if (error == ENOENT)
        return QStringLiteral("does not exist");
    if (error == ENXIO) { // a socket, or a device without a driver: say which
        struct stat st;
        if (::stat(name.constData(), &st) == 0) {
            const QString wrong = whatIsWrongWithType(st.st_mode);
            if (!wrong.isEmpty())
                return wrong;
        }
    }
    return QStringLiteral("cannot be opened (") + errnoText(error) + QLatin1Char(')');
}

// Opens path for reading without waiting on what it is, and checks it is a regular file of at
// most limit bytes. Returns the descriptor, or -1 with the reason in *why.
int openRegular(const QString &path, qint64 limit, Links links, QString *why, qint64 *size = nullptr)
{
    if (path.isEmpty()) {
        *why = QStringLiteral("is an empty path");
        return -1;
    }
    const QByteArray name = QFile::encodeName(path);
    int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    if (links == Links::Refuse)
        flags |= O_NOFOLLOW;
    int fd;
    do {
        fd = ::open(name.constData(), flags);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        *why = openFailure(name, errno, links);
        return -1;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        *why = QStringLiteral("cannot be examined (") + errnoText(errno) + QLatin1Char(')');
        ::close(fd);
        return -1;
    }
    if (const QString wrong = whatIsWrongWithType(st.st_mode); !wrong.isEmpty()) {
        *why = wrong;
        ::close(fd);
        return -1;
    }
    if (size)
        *size = st.st_size;
    if (st.st_size > limit) {
        *why = QStringLiteral("is larger than ") + sizeText(limit) + QStringLiteral(" (") +
               sizeText(st.st_size) + QStringLiteral("), more than hotkernel reads from such a file");
        ::close(fd);
        return -1;
    }
    return fd;
}

// Reads fd to its end, handing each chunk to sink; fails once more than limit bytes came (a file
// that grew after fstat).
bool readAllBounded(int fd, qint64 limit, const std::function<void(const char *, qint64)> &sink, QString *why)
{
    QByteArray chunk(kChunk, Qt::Uninitialized);
    qint64 total = 0;
    while (true) {
        const ssize_t got = ::read(fd, chunk.data(), size_t(chunk.size()));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            *why = QStringLiteral("cannot be read (") + errnoText(errno) + QLatin1Char(')');
            return false;
        }
        if (got == 0)
            return true;
        total += got;
        if (total > limit) {
            *why = QStringLiteral("grew past ") + sizeText(limit) +
                   QStringLiteral(" while it was read, more than hotkernel reads from such a file");
            return false;
        }
        sink(chunk.constData(), got);
    }
}

} // namespace

QString whatIsWrongWithType(unsigned mode)
{
    if (S_ISREG(mode))
        return {};
    if (S_ISFIFO(mode))
        return QStringLiteral("is a FIFO (named pipe), not a regular file");
    if (S_ISCHR(mode))
        return QStringLiteral("is a character device (such as /dev/zero), not a regular file");
    if (S_ISBLK(mode))
        return QStringLiteral("is a block device, not a regular file");
    if (S_ISDIR(mode))
        return QStringLiteral("is a directory, not a regular file");
    if (S_ISSOCK(mode))
        return QStringLiteral("is a socket, not a regular file");
    if (S_ISLNK(mode))
        return QStringLiteral("is a symbolic link, not a regular file");
    return QStringLiteral("is not a regular file");
}

QString sizeText(qint64 bytes)
{
    if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
        return QString::number(bytes / (1024 * 1024)) + QStringLiteral(" MiB");
    if (bytes >= 1024 * 1024)
        return QString::number(double(bytes) / (1024 * 1024), 'f', 1) + QStringLiteral(" MiB");
    return QString::number(bytes) + QStringLiteral(" bytes");
}

Read read(const QString &path, qint64 limit, Links links)
{
    Read out;
    const Fd fd(openRegular(path, limit, links, &out.error, &out.size));
    if (fd.get() < 0)
        return out;
    QByteArray bytes;
    if (!readAllBounded(
            fd.get(), limit, [&bytes](const char *data, qint64 size) { bytes.append(data, size); },
            &out.error))
        return out;
    out.bytes = std::move(bytes);
    return out;
}

Read readStart(const QString &path, qint64 count, Links links, qint64 offset)
{
    Read out;
    const Fd fd(openRegular(path, std::numeric_limits<qint64>::max(), links, &out.error, &out.size));
    if (fd.get() < 0)
        return out;
    if (offset > 0 && ::lseek(fd.get(), off_t(offset), SEEK_SET) < 0) {
        out.error =
            QStringLiteral("cannot be read from byte ") + QString::number(offset) + QStringLiteral(" on");
        return out;
    }
    QByteArray bytes(count, Qt::Uninitialized);
    qint64 got = 0;
    while (got < count) {
        const ssize_t n = ::read(fd.get(), bytes.data() + got, size_t(count - got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            out.error = QStringLiteral("cannot be read (") + errnoText(errno) + QLatin1Char(')');
            return out;
        }
        if (n == 0)
            break;
        got += n;
    }
    bytes.truncate(got);
    out.bytes = std::move(bytes);
    return out;
}

Read readDescriptor(int fd, qint64 limit)
{
    Read out;
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        out.error = QStringLiteral("cannot be examined (") + errnoText(errno) + QLatin1Char(')');
        return out;
    }
    if (const QString wrong = whatIsWrongWithType(st.st_mode); !wrong.isEmpty()) {
        out.error = wrong;
        return out;
    }
    out.size = st.st_size;
    QByteArray bytes;
    if (!readAllBounded(
            fd, limit, [&bytes](const char *data, qint64 size) { bytes.append(data, size); }, &out.error))
        return out;
    out.bytes = std::move(bytes);
    return out;
}

QByteArray readOrThrow(const QString &path, qint64 limit, const QString &what, const QString &advice,
                       Links links)
{
    Read r = read(path, limit, links);
    if (!r.ok())
        throw UserError(what + QLatin1Char(' ') + path + QLatin1Char(' ') + r.error + QStringLiteral(": ") +
                        advice);
    return std::move(r.bytes);
}

QString sha256Hex(const QString &path, qint64 limit, Links links)
{
    QString why;
    const Fd fd(openRegular(path, limit, links, &why));
    if (fd.get() < 0)
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!readAllBounded(
            fd.get(), limit,
            [&hash](const char *data, qint64 size) { hash.addData(QByteArrayView(data, size)); }, &why))
        return {};
    return QString::fromLatin1(hash.result().toHex());
}

} // namespace hotkernel::BoundedFile
