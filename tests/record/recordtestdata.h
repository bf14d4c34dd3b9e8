// SPDX-License-Identifier: Apache-2.0
// Test inputs for tests/record: the hand-made verify results of tests/data/record/verify/ with
// their script paths pointed at copies inside a test's working directory.
#pragma once

#include "base/json.h"

#include <QDir>
#include <QFile>
#include <QTest>

namespace hotkernel::recordtest {

inline QString dataDir()
{
    return QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/record");
}

inline QByteArray readAll(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

inline bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

// The verify result tests/data/record/verify/<name>.json, its scripts copied into root.
inline Json verifyResult(const QString &name, const QString &root)
{
    const auto parsed =
        parseJson(readAll(dataDir() + QStringLiteral("/verify/") + name + QStringLiteral(".json")));
    if (!parsed)
        return Json();
    Json verify = *parsed;
    for (const char *role : {"baseline", "candidate"}) {
        const QString script = stringField(verify, role);
        const QString copy = QDir(root).filePath(script);
        if (!QFile::exists(copy))
            QFile::copy(dataDir() + QStringLiteral("/scripts/") + script, copy);
        verify[std::string(role) + "_path"] = toStd(copy);
    }
    return verify;
}

} // namespace hotkernel::recordtest
