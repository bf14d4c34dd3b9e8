// SPDX-License-Identifier: Apache-2.0
// Reading a file that a script, an argument or a report names, without trusting what it is: opened
// non-blocking (a FIFO or a device never holds the opening thread), refused unless it is a regular
// file, read up to a limit (a file that grows while read stops there). Blocking calls: run them on
// the thread pool when the file may be large (docs/hacking.md, "Files a user names"). Any thread.
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace hotkernel::BoundedFile {

// Whether a symbolic link as the last part of the path is read through (a path a person typed) or
// refused (a file hotkernel or its worker made, where a link means someone swapped it).
enum class Links { Follow, Refuse };

// Limits, named once so that the messages and the tests agree.
inline constexpr qint64 kScriptLimit = 16 * 1024 * 1024;  // a target script or a module it imports
inline constexpr qint64 kJsonLimit = 64 * 1024 * 1024;    // a verify result, a report, a calibration
inline constexpr qint64 kReportLimit = 512 * 1024 * 1024; // a profiler's report or a trace

struct Read
{
    QByteArray bytes;
    qint64 size = -1; // the file's size when it was opened (fstat)
    QString error;    // empty when bytes holds the whole file; else why not, e.g. "is a FIFO (named pipe)"
    bool ok() const { return error.isEmpty(); }
};

// path's bytes when it is a regular file of at most limit bytes; else the reason in error, worded
// to follow the path ("/x/y is a FIFO ..."). Never blocks on what the file is.
Read read(const QString &path, qint64 limit, Links links = Links::Follow);

// At most `count` bytes of path from `offset` on; path must be a regular file of any size (its size
// in Read::size): a header, or the new part of a file that grows.
Read readStart(const QString &path, qint64 count, Links links = Links::Follow, qint64 offset = 0);

// read() on a descriptor already opened (with O_NONBLOCK), e.g. relative to a directory's; the
// caller keeps and closes it.
Read readDescriptor(int fd, qint64 limit);

// read(), throwing UserError on failure: "<what> <path> <reason>: <advice>".
QByteArray readOrThrow(const QString &path, qint64 limit, const QString &what, const QString &advice,
                       Links links = Links::Follow);

// Lowercase hex sha256 of path's bytes, or an empty string when read() would fail. Streams the file
// (no copy in memory); meant for QtConcurrent::run.
QString sha256Hex(const QString &path, qint64 limit, Links links = Links::Follow);

// The reason a file of this st_mode is refused ("is a FIFO (named pipe)"), empty for a regular file.
QString whatIsWrongWithType(unsigned mode);

// "64 MiB", for messages.
QString sizeText(qint64 bytes);

} // namespace hotkernel::BoundedFile
