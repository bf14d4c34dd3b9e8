// SPDX-License-Identifier: Apache-2.0
#include "measure/importedsources.h"

#include "base/boundedfile.h"

#include <QDir>

#include <sys/stat.h>

namespace hotkernel {

namespace {
bool under(const QString &path, const QStringList &dirs)
{
    for (const QString &dir : dirs)
        if (!dir.isEmpty() && QDir::cleanPath(path).startsWith(QDir::cleanPath(dir) + QLatin1Char('/')))
            return true;
    return false;
}
} // namespace

QString ImportedSources::changed(const std::map<QString, QByteArray> &sources, const QStringList &privateDirs,
                                 qint64 sinceNs)
{
    for (const auto &[path, reported] : sources) {
        const QString native = QDir::toNativeSeparators(path);
        // stat, not open: a FIFO or device put there holds nothing up (docs/hacking.md).
        struct stat info
        {
        };
        if (::stat(QFile::encodeName(path).constData(), &info) != 0)
            return QStringLiteral("%1, which a worker imported, vanished during the verify").arg(native);
        const qint64 ctimeNs = qint64(info.st_ctim.tv_sec) * 1000000000 + info.st_ctim.tv_nsec;
        if (ctimeNs >= sinceNs && !under(path, privateDirs))
            return QStringLiteral("%1, which a worker imported, was written during the verify (its "
                                  "status-change time is after the verify began), so a worker may have "
                                  "run other code than the file holds now")
                .arg(native);
        if (reported.isEmpty())
            continue; // written after its worker started: its ctime (above) or a later edit tells
        const QString now = BoundedFile::sha256Hex(path, BoundedFile::kScriptLimit);
        if (now.isEmpty())
            return QStringLiteral("%1, which a worker imported, cannot be read after the runs").arg(native);
        if (now.toLatin1().toLower() != reported.toLower())
            return QStringLiteral("%1 changed after a worker imported it (sha256 then %2, now %3), so the "
                                  "runs measured other code than the file holds now")
                .arg(native, QString::fromLatin1(reported.left(12)), now.left(12));
    }
    return {};
}

} // namespace hotkernel
