// SPDX-License-Identifier: Apache-2.0
// Where hotkernel keeps its per-user runtime files (GPU locks, the workbench's socket): a directory
// no other user can write, so no other user can block, squat or redirect them (issue 18).
// $XDG_RUNTIME_DIR when it is set and private to this user, else a 0700 directory
// <temp>/hotkernel-<uid> that hotkernel creates, after checking type, owner and mode. Any thread.
#pragma once

#include <QString>

namespace hotkernel {

class RuntimeDir
{
public:
    // The directory, or empty with *error saying what is wrong and what to do.
    static QString path(QString *error = nullptr);

    // Opens (creating, mode 0600) the regular file at path for locking, without ever blocking
    // (O_NONBLOCK: a FIFO there cannot stall us) or following a symlink, and only when it is a
    // regular file owned by this user. Returns the descriptor, or -1 with *error set.
    static int openPrivateFile(const QString &path, QString *error);

    // Checks that an existing directory is one no other user can write into.
    static bool isPrivateDirectory(const QString &path, QString *error);
};

} // namespace hotkernel
