// SPDX-License-Identifier: Apache-2.0
// Finds compiled kernels in Triton's cache (one hash folder per kernel holding <name>.cubin,
// .ptx, .ttir, .ttgir, .llir and <name>.json metadata). Blocking file-system reads: call it from
// a worker thread (QtConcurrent), never the GUI thread.
#pragma once

#include "base/json.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <optional>

namespace hotkernel {

struct TritonKernel
{
    QString name;   // the kernel's name as Triton stored it
    QString folder; // the hash folder
    QString cubin;  // empty when the folder has none
    QString ptx;
    QString metadataPath;
    QDateTime modified;             // of the cubin (or the metadata)
    Json metadata = Json::object(); // the .json as Triton wrote it
};

class TritonCache
{
public:
    // $TRITON_CACHE_DIR (when set) and ~/.triton/cache, in that order, existing ones only.
    static QStringList defaultRoots();
    // Every kernel in the given roots whose name contains nameSubstring (case-sensitive), newest first.
    static std::vector<TritonKernel> find(const QStringList &roots, const QString &nameSubstring);
};

} // namespace hotkernel
