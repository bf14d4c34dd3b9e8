// SPDX-License-Identifier: Apache-2.0
// Issue 41: every source file a verify's workers imported, checked after the last pair. A
// candidate that rewrites the baseline's `--from` module before the baseline imports it and
// restores it later (bytes and mtime) leaves two traces this finds even where it ran unconfined:
// a file whose bytes differ from what the worker hashed when it reported the file, and a file
// whose status-change time (which no one can set back) falls inside the verify. Pure; runs on the
// thread pool.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <map>

namespace hotkernel {

class ImportedSources
{
public:
    // sources: path -> the sha256 hex the worker reported (empty: it could not vouch, e.g. a
    // compiler's cache file written after the worker started). privateDirs: the workers' scratch
    // folders, whose files (generated modules) are written during a verify by design; their bytes
    // are still compared. sinceNs: the verify's start on the real-time clock, in ns since the epoch.
    // Returns why the verify measured other code than the files now on disk, naming the file; empty
    // when nothing changed.
    static QString changed(const std::map<QString, QByteArray> &sources, const QStringList &privateDirs,
                           qint64 sinceNs);
};

} // namespace hotkernel
