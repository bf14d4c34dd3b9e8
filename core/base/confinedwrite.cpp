// SPDX-License-Identifier: Apache-2.0
#include "base/confinedwrite.h"

#include "base/boundedfile.h"
#include "base/usererror.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QScopeGuard>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HOTKERNEL_HAVE_OPENAT2_HEADER 1
#endif

namespace hotkernel {

namespace {

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

std::atomic<bool> openat2Enabled{true};

QString randomSuffix()
{
    return QStringLiteral("%1").arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
}

// Opens root/relative as a folder with the kernel refusing any step out of root (symlinks that
// stay inside are followed). -1 with errno on failure; -2 when this kernel has no openat2
// (before Linux 5.6, or a seccomp filter that refuses it), so the caller walks by hand.
int openBeneath(int rootFd, const QByteArray &relative)
{
#if defined(HOTKERNEL_HAVE_OPENAT2_HEADER) && defined(SYS_openat2)
    static std::atomic<bool> unsupported{false};
    if (openat2Enabled.load(std::memory_order_relaxed) && !unsupported.load(std::memory_order_relaxed)) {
        open_how how{};
        how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        for (int attempt = 0; attempt < 8; ++attempt) {
            const long fd = ::syscall(SYS_openat2, rootFd, relative.constData(), &how, sizeof how);
            if (fd >= 0)
                return int(fd);
            if (errno == EAGAIN || errno == EINTR)
                continue; // a concurrent rename: the kernel asks us to try again
            if (errno != ENOSYS && errno != EPERM)
                return -1;
            unsupported.store(true, std::memory_order_relaxed);
            break;
        }
    }
#else
    Q_UNUSED(rootFd)
    Q_UNUSED(relative)
#endif
    return -2;
}

[[noreturn]] void throwOpenError(int error, const QString &root, const QString &relative)
{
    const QString path = QDir(root).filePath(relative);
    if (error == EXDEV || error == ELOOP)
        throw UserError(
            QStringLiteral(
                "%1 is (or passes through) a symbolic link that leads out of the working directory "
                "%2 (an absolute link counts as leading out, and so does any link on kernels before "
                "Linux 5.6): hotkernel writes only "
                "inside the working directory and never through such a link. Replace the link "
                "with a real folder (or remove it) and try again.")
                .arg(path, root));
    if (error == ENOTDIR || error == EEXIST)
        throw UserError(
            QStringLiteral("cannot create or open the folder %1: a file of that name is in the way; move it "
                           "away and try again.")
                .arg(path));
    if (error == ENOENT)
        throw UserError(QStringLiteral("%1 does not exist.").arg(path));
    throw UserError(QStringLiteral("cannot open the folder %1 (%2): check its permissions and try again.")
                        .arg(path, errnoText(error)));
}

bool writeAll(int fd, const QByteArray &bytes)
{
    const char *data = bytes.constData();
    qsizetype left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, size_t(left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        left -= n;
    }
    return true;
}

// Removes everything inside the folder dirFd (it stays). Never follows a symlink.
void removeContents(int dirFd, int depth)
{
    if (depth > 64)
        return;
    // A pass may miss entries while the folder changes under readdir; a second pass finds them.
    for (int pass = 0; pass < 4; ++pass) {
        const int copy = ::fcntl(dirFd, F_DUPFD_CLOEXEC, 0);
        if (copy < 0)
            return;
        DIR *dir = ::fdopendir(copy);
        if (!dir) {
            ::close(copy);
            return;
        }
        ::rewinddir(dir);
        bool removedAny = false;
        bool sawAny = false;
        while (const dirent *entry = ::readdir(dir)) {
            if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0)
                continue;
            sawAny = true;
            if (::unlinkat(dirFd, entry->d_name, 0) == 0) {
                removedAny = true;
                continue;
            }
            if (errno != EISDIR && errno != EPERM)
                continue;
            const int sub = ::openat(dirFd, entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                continue;
            removeContents(sub, depth + 1);
            ::close(sub);
            if (::unlinkat(dirFd, entry->d_name, AT_REMOVEDIR) == 0)
                removedAny = true;
        }
        ::closedir(dir);
        if (!sawAny || !removedAny)
            return;
    }
}

} // namespace

QString ConfinedWrite::nameProblem(const QString &name)
{
    if (name.isEmpty())
        return QStringLiteral("is empty");
    if (name == QLatin1String(".") || name == QLatin1String(".."))
        return QStringLiteral("is '%1', which names a folder, not a file").arg(name);
    if (name.contains(QLatin1Char('/')) || name.contains(QLatin1Char('\\')))
        return QStringLiteral("contains a path separator ('/' or '\\')");
    if (name.contains(QLatin1String("..")))
        return QStringLiteral("contains '..'");
    if (name.contains(QChar(0)))
        return QStringLiteral("contains a NUL character");
    if (QFile::encodeName(name).size() > 255)
        return QStringLiteral("is longer than 255 bytes, the longest file name Linux allows");
    return {};
}

void ConfinedWrite::requireName(const QString &name, const QString &what)
{
    if (const QString problem = nameProblem(name); !problem.isEmpty())
        throw UserError(QStringLiteral("%1 '%2' %3: it becomes one file name, so give a plain name without "
                                       "'/', '\\' or '..' (such as rmsnorm_v2); hotkernel picks the folder.")
                            .arg(what, name, problem));
}

void ConfinedWrite::setOpenat2Enabled(bool enabled)
{
    openat2Enabled.store(enabled);
}

void ConfinedWrite::writeFile(const QString &root, const QString &relativePath, const QByteArray &bytes)
{
    const QString clean = QDir::cleanPath(relativePath);
    const qsizetype slash = clean.lastIndexOf(QLatin1Char('/'));
    const QString folder = slash < 0 ? QString() : clean.left(slash);
    const QString name = slash < 0 ? clean : clean.mid(slash + 1);
    ConfinedDir::open(root, folder).write(name, bytes);
}

ConfinedDir ConfinedDir::open(const QString &rootPath, const QString &relativeDir, bool create)
{
    const QString root = QDir::cleanPath(rootPath);
    QString relative = relativeDir;
    if (QDir::isAbsolutePath(relative)) {
        const QString clean = QDir::cleanPath(relative);
        if (clean == root)
            relative.clear();
        else if (clean.startsWith(root + QLatin1Char('/')))
            relative = clean.mid(root.size() + 1);
        else
            throw UserError(QStringLiteral("%1 is outside the working directory %2: hotkernel writes only "
                                           "inside it; give a path under %2.")
                                .arg(clean, root));
    }
    QStringList parts = relative.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    parts.removeAll(QStringLiteral("."));
    for (const QString &part : std::as_const(parts)) {
        if (part == QLatin1String(".."))
            throw UserError(
                QStringLiteral("the folder '%1' climbs out with '..': hotkernel writes only inside "
                               "the working directory %2; give a path below it.")
                    .arg(relativeDir, root));
        if (part.contains(QChar(0)))
            throw UserError(QStringLiteral("the folder '%1' contains a NUL character.").arg(relativeDir));
    }

    const int rootFd = ::open(QFile::encodeName(root).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootFd < 0)
        throw UserError(
            QStringLiteral("cannot open the working directory %1 (%2).").arg(root, errnoText(errno)));
    int current = rootFd;
    QString done;
    const auto closeAll = [&]() {
        if (current != rootFd)
            ::close(current);
        ::close(rootFd);
    };
    for (const QString &part : std::as_const(parts)) {
        const QByteArray encoded = QFile::encodeName(part);
        if (create && ::mkdirat(current, encoded.constData(), 0777) != 0 && errno != EEXIST) {
            const int error = errno;
            closeAll();
            throw UserError(
                QStringLiteral("cannot create the folder %1 (%2): make %3 writable and try again.")
                    .arg(QDir(root).filePath(done.isEmpty() ? part : done + QLatin1Char('/') + part),
                         errnoText(error), QDir(root).filePath(done)));
        }
        const QString next = done.isEmpty() ? part : done + QLatin1Char('/') + part;
        int fd = openBeneath(rootFd, QFile::encodeName(next));
        if (fd == -2) // by hand: refuse every symlink, since we cannot tell safely where it leads
            fd = ::openat(current, encoded.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            int error = errno;
            // O_NOFOLLOW with O_DIRECTORY answers ENOTDIR for a symlink: say what it really is.
            struct stat st
            {
            };
            if (error == ENOTDIR && ::fstatat(current, encoded.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISLNK(st.st_mode))
                error = ELOOP;
            closeAll();
            throwOpenError(error, root, next);
        }
        if (current != rootFd)
            ::close(current);
        current = fd;
        done = next;
    }
    if (current != rootFd)
        ::close(rootFd);
    return ConfinedDir(current, done.isEmpty() ? root : root + QLatin1Char('/') + done);
}

ConfinedDir::ConfinedDir(ConfinedDir &&other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_path(std::move(other.m_path))
{}

ConfinedDir &ConfinedDir::operator=(ConfinedDir &&other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
    }
    return *this;
}

ConfinedDir::~ConfinedDir()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

QString ConfinedDir::filePath(const QString &name) const
{
    return m_path + QLatin1Char('/') + name;
}

bool ConfinedDir::write(const QString &name, const QByteArray &bytes, Existing existing,
                        const std::function<void(const QString &)> &beforeRename) const
{
    ConfinedWrite::requireName(name, QStringLiteral("the file name"));
    // A dot file in the same folder: the rename stays on one file system (so it is atomic) and
    // scans of the folder (results/, profiles/) never take it for a finished file.
    QByteArray temporary;
    int fd = -1;
    for (int attempt = 0; attempt < 64 && fd < 0; ++attempt) {
        temporary = QFile::encodeName(QStringLiteral(".hotkernel-%1.part").arg(randomSuffix()));
        fd =
            ::openat(m_fd, temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        throw UserError(QStringLiteral("cannot write in %1 (%2): make the folder writable and try again.")
                            .arg(m_path, errnoText(errno)));
    auto removeTemporary = qScopeGuard([&] { ::unlinkat(m_fd, temporary.constData(), 0); });
    const bool written = writeAll(fd, bytes) && ::fsync(fd) == 0;
    const int writeError = errno;
    if (::close(fd) != 0 || !written)
        throw UserError(QStringLiteral("writing %1 failed (%2): free some space or fix the folder, then try "
                                       "again.")
                            .arg(filePath(name), errnoText(written ? errno : writeError)));
    if (beforeRename)
        beforeRename(filePath(QFile::decodeName(temporary)));

    const QByteArray target = QFile::encodeName(name);
    if (existing == Existing::Replace) {
        // rename() replaces a symlink at the target itself; it never writes where the link points.
        if (::renameat(m_fd, temporary.constData(), m_fd, target.constData()) != 0)
            throw UserError(QStringLiteral("cannot put %1 in place (%2): remove what is there (a folder?) or "
                                           "make the folder writable, then try again.")
                                .arg(filePath(name), errnoText(errno)));
        removeTemporary.dismiss();
        return true;
    }
    if (::renameat2(m_fd, temporary.constData(), m_fd, target.constData(), RENAME_NOREPLACE) == 0) {
        removeTemporary.dismiss();
        return true;
    }
    if (errno == EEXIST)
        return false;
    if (errno != EINVAL && errno != ENOSYS)
        throw UserError(QStringLiteral("cannot put %1 in place (%2): make the folder writable and try again.")
                            .arg(filePath(name), errnoText(errno)));
    // A file system without RENAME_NOREPLACE: link() refuses an existing name just the same.
    if (::linkat(m_fd, temporary.constData(), m_fd, target.constData(), 0) != 0) {
        if (errno == EEXIST)
            return false;
        throw UserError(QStringLiteral("cannot put %1 in place (%2): make the folder writable and try again.")
                            .arg(filePath(name), errnoText(errno)));
    }
    return true; // the guard unlinks the temporary name; the data stays under its final name
}

bool ConfinedDir::remove(const QString &name) const
{
    ConfinedWrite::requireName(name, QStringLiteral("the file name"));
    return ::unlinkat(m_fd, QFile::encodeName(name).constData(), 0) == 0 || errno == ENOENT;
}

bool ConfinedDir::hasFile(const QString &name) const
{
    if (!ConfinedWrite::nameProblem(name).isEmpty())
        return false;
    struct stat st
    {
    };
    return ::fstatat(m_fd, QFile::encodeName(name).constData(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           S_ISREG(st.st_mode);
}

void ConfinedDir::moveFrom(const ConfinedDir &source, const QString &sourceName, const QString &name) const
{
    ConfinedWrite::requireName(name, QStringLiteral("the file name"));
    if (!source.hasFile(sourceName))
        throw UserError(
            QStringLiteral("%1 is missing or not a regular file.").arg(source.filePath(sourceName)));
    const QByteArray from = QFile::encodeName(sourceName);
    if (::renameat(source.m_fd, from.constData(), m_fd, QFile::encodeName(name).constData()) == 0)
        return;
    if (errno != EXDEV)
        throw UserError(QStringLiteral("cannot move %1 to %2 (%3): make the folder writable and try again.")
                            .arg(source.filePath(sourceName), filePath(name), errnoText(errno)));
    // Another file system mounted in between: copy the bytes, then drop the source.
    // Non-blocking and checked: a FIFO or a device put there never holds this thread.
    const int fd = ::openat(source.m_fd, from.constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        throw UserError(
            QStringLiteral("cannot read %1 (%2).").arg(source.filePath(sourceName), errnoText(errno)));
    const BoundedFile::Read read = BoundedFile::readDescriptor(fd, BoundedFile::kReportLimit);
    ::close(fd);
    if (!read.ok())
        throw UserError(source.filePath(sourceName) + QLatin1Char(' ') + read.error +
                        QStringLiteral(": hotkernel moves only regular files it can read whole."));
    write(name, read.bytes);
    source.remove(sourceName);
}

ConfinedTempDir::ConfinedTempDir(const ConfinedDir &parent, const QString &purpose)
    : m_parentFd(::fcntl(parent.descriptor(), F_DUPFD_CLOEXEC, 0)), m_dir(-1, QString())
{
    if (m_parentFd < 0)
        throw UserError(QStringLiteral("cannot use %1 (%2).").arg(parent.path(), errnoText(errno)));
    for (int attempt = 0; attempt < 64; ++attempt) {
        m_name = QStringLiteral(".hotkernel-%1-%2").arg(purpose, randomSuffix());
        const QByteArray encoded = QFile::encodeName(m_name);
        if (::mkdirat(m_parentFd, encoded.constData(), 0700) != 0) {
            if (errno == EEXIST)
                continue;
            break;
        }
        const int fd =
            ::openat(m_parentFd, encoded.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            break;
        m_dir = ConfinedDir(fd, parent.filePath(m_name));
        return;
    }
    const int error = errno;
    ::close(m_parentFd);
    throw UserError(QStringLiteral("cannot create a temporary folder in %1 (%2): make it writable and try "
                                   "again.")
                        .arg(parent.path(), errnoText(error)));
}

ConfinedTempDir::~ConfinedTempDir()
{
    if (m_dir.descriptor() >= 0)
        removeContents(m_dir.descriptor(), 0);
    ::unlinkat(m_parentFd, QFile::encodeName(m_name).constData(), AT_REMOVEDIR);
    ::close(m_parentFd);
}

} // namespace hotkernel
