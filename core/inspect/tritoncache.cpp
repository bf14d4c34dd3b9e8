// SPDX-License-Identifier: Apache-2.0
#include "inspect/tritoncache.h"

#include "base/boundedfile.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace hotkernel {

QStringList TritonCache::defaultRoots()
{
    QStringList roots;
    const QString fromVariable = qEnvironmentVariable("TRITON_CACHE_DIR");
    if (!fromVariable.isEmpty())
        roots.append(fromVariable);
    roots.append(QDir::homePath() + QStringLiteral("/.triton/cache"));
    roots.removeDuplicates();
    roots.erase(
        std::remove_if(roots.begin(), roots.end(), [](const QString &r) { return !QFileInfo(r).isDir(); }),
        roots.end());
    return roots;
}

std::vector<TritonKernel> TritonCache::find(const QStringList &roots, const QString &nameSubstring)
{
    std::vector<TritonKernel> out;
    for (const QString &root : roots) {
        // Metadata files sit one level down: <root>/<hash>/<name>.json. "__grp__<name>.json" lists
        // a group's files and is not a kernel.
        QDirIterator folders(root, QDir::Dirs | QDir::NoDotAndDotDot);
        while (folders.hasNext()) {
            const QString folder = folders.next();
            const QStringList jsons = QDir(folder).entryList({QStringLiteral("*.json")}, QDir::Files);
            for (const QString &json : jsons) {
                if (json.startsWith(QLatin1String("__grp__")))
                    continue;
                const QString name = json.chopped(5);
                if (!name.contains(nameSubstring))
                    continue;
                TritonKernel k;
                k.name = name;
                k.folder = folder;
                k.metadataPath = folder + QLatin1Char('/') + json;
                const QString cubin = folder + QLatin1Char('/') + name + QStringLiteral(".cubin");
                const QString ptx = folder + QLatin1Char('/') + name + QStringLiteral(".ptx");
                if (QFileInfo::exists(cubin))
                    k.cubin = cubin;
                if (QFileInfo::exists(ptx))
                    k.ptx = ptx;
                if (k.cubin.isEmpty() && k.ptx.isEmpty())
                    continue; // metadata of something else (autotuner results, a failed compile)
                k.modified = QFileInfo(k.cubin.isEmpty() ? k.metadataPath : k.cubin).lastModified();
                const BoundedFile::Read file = BoundedFile::read(k.metadataPath, BoundedFile::kJsonLimit);
                if (file.ok()) {
                    if (const auto parsed = parseJson(file.bytes); parsed && parsed->is_object())
                        k.metadata = *parsed;
                }
                if (k.metadata.contains("name") && k.metadata["name"].is_string())
                    k.name = toQt(k.metadata["name"].get<std::string>());
                out.push_back(std::move(k));
            }
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const TritonKernel &a, const TritonKernel &b) { return a.modified > b.modified; });
    return out;
}

} // namespace hotkernel
