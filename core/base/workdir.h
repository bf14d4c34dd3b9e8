// SPDX-License-Identifier: Apache-2.0
// The working directory a session was opened in, and the rule that tools write only inside it.
#pragma once

#include <QDir>
#include <QString>

namespace hotkernel {

class WorkDir
{
public:
    explicit WorkDir(const QString &root = QDir::currentPath());

    QString root() const { return m_root; }
    // An absolute path for a user-given one (relative paths are taken from the root).
    QString absolute(const QString &path) const;
    // True when path, with every symlink resolved (also in not-yet-existing parents), is inside
    // the root. Throws UserError naming the path otherwise, when throwIfOutside is set.
    bool contains(const QString &path) const;
    QString requireInside(const QString &path, const QString &what) const;
    QString relative(const QString &path) const;

private:
    QString m_root; // canonical
};

} // namespace hotkernel
