// SPDX-License-Identifier: Apache-2.0
// Which local files a remote run needs (issue 24): the target scripts, the vendored contract next
// to each, and the user's local modules they use: sibling modules named by an import, and files a
// script names as "./file.py" (load_function, reference, derive), followed transitively.
// Pure file reading. Any thread.
#pragma once

#include <QStringList>

namespace hotkernel {

namespace SyncSet {

// Paths relative to root, sorted; files outside root are left out and listed in *outside.
// resolveDir: where the scripts' own references resolve (default: their folder), for scripts staged
// elsewhere than where they will live.
QStringList collect(const QString &root, const QStringList &scripts, QStringList *outside = nullptr,
                    const QString &resolveDir = {});

} // namespace SyncSet
} // namespace hotkernel
