// SPDX-License-Identifier: Apache-2.0
// The one place hotkernel writes files: folders under the working directory opened without ever
// leaving it (openat2 RESOLVE_BENEATH where the kernel has it, else O_NOFOLLOW on every component),
// files replaced atomically through a temporary file and a rename in the same folder, so a symlink
// at the destination is replaced, never written through. Blocking file I/O; any thread.
#pragma once

#include <QByteArray>
#include <QString>

#include <functional>

namespace hotkernel {

// An open folder inside the working directory; every write below it goes through its descriptor.
class ConfinedDir
{
public:
    // Opens relativeDir ("" or "." for the root itself; an absolute path must lie under root)
    // below root, creating missing folders when create is set. Throws UserError when a part of it
    // is "..", a symlink leading out of root, or not a folder.
    static ConfinedDir open(const QString &root, const QString &relativeDir, bool create = true);

    ConfinedDir(ConfinedDir &&other) noexcept;
    ConfinedDir &operator=(ConfinedDir &&other) noexcept;
    ConfinedDir(const ConfinedDir &) = delete;
    ConfinedDir &operator=(const ConfinedDir &) = delete;
    ~ConfinedDir();

    QString path() const { return m_path; } // absolute, for messages and for tools given a folder
    QString filePath(const QString &name) const;
    int descriptor() const { return m_fd; }

    enum class Existing {
        Replace, // a file or symlink already at the name is replaced (a symlink's target is untouched)
        Keep,    // an existing name is left alone and write() returns false
    };
    // Writes bytes to name (one file name, see ConfinedWrite::requireName) through a temporary
    // dot file and a rename. beforeRename (a test hook) sees the temporary file's path; when it
    // throws, the temporary file is removed. Throws UserError when the folder refuses.
    bool write(const QString &name, const QByteArray &bytes, Existing existing = Existing::Replace,
               const std::function<void(const QString &)> &beforeRename = {}) const;
    // Removes the file or symlink at name (never what a symlink points to); true when it is gone.
    bool remove(const QString &name) const;
    // Moves the regular file sourceName of source here as name, replacing what is there.
    // Throws UserError when the source is missing or not a regular file.
    void moveFrom(const ConfinedDir &source, const QString &sourceName, const QString &name) const;
    // Whether name exists here as a regular file (a symlink is not followed).
    bool hasFile(const QString &name) const;

private:
    ConfinedDir(int fd, QString path) : m_fd(fd), m_path(std::move(path)) {}
    friend class ConfinedTempDir;

    int m_fd = -1;
    QString m_path;
};

// A private folder (mode 0700) inside a ConfinedDir for tools that write files themselves (ncu,
// nsys, the tracer, a staging area). Owned like any C++ object: it and everything in it are removed
// when it is destroyed, so every exit path of the coroutine that holds it (return, throw,
// cancellation, a job ended by a signal) cleans up.
class ConfinedTempDir
{
public:
    // Creates parent/.hotkernel-<purpose>-XXXXXX. Throws UserError.
    ConfinedTempDir(const ConfinedDir &parent, const QString &purpose);
    ConfinedTempDir(const ConfinedTempDir &) = delete;
    ConfinedTempDir &operator=(const ConfinedTempDir &) = delete;
    ~ConfinedTempDir();

    const ConfinedDir &dir() const { return m_dir; }
    QString path() const { return m_dir.path(); }
    QString filePath(const QString &name) const { return m_dir.filePath(name); }

private:
    int m_parentFd = -1; // a duplicate: the parent ConfinedDir may go first
    QString m_name;
    ConfinedDir m_dir;
};

namespace ConfinedWrite {
// Empty when name can be one file name in a folder: not empty, not "." or "..", without '/',
// '\\', NUL or "..", at most 255 bytes; else what is wrong with it.
QString nameProblem(const QString &name);
// Throws UserError naming what (e.g. "report name") and the rule.
void requireName(const QString &name, const QString &what);
// Writes root/relativePath (its folder created as needed) atomically; see ConfinedDir::write.
void writeFile(const QString &root, const QString &relativePath, const QByteArray &bytes);
// Tests only: false makes open() walk by hand as on kernels before openat2 (Linux 5.6).
void setOpenat2Enabled(bool enabled);
} // namespace ConfinedWrite

} // namespace hotkernel
