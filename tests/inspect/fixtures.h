// SPDX-License-Identifier: Apache-2.0
// Reads the real tool captures under tests/data/inspect/ (see CAPTURE.md there).
#pragma once

#include <QFile>
#include <QString>
#include <QTest>

inline QString inspectFixturePath(const QString &name)
{
    return QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/") + name;
}

inline QByteArray readInspectFixture(const QString &name)
{
    QFile file(inspectFixturePath(name));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(file.fileName()));
    return file.readAll();
}
