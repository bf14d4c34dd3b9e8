// SPDX-License-Identifier: Apache-2.0
#include "base/exactpath.h"

#include <QList>

namespace hotkernel::ExactPath {

namespace {

QString nameOf(uint c)
{
    switch (c) {
    case 0x0A:
        return QStringLiteral("a line feed");
    case 0x0D:
        return QStringLiteral("a carriage return");
    case 0x09:
        return QStringLiteral("a tab");
    case 0x20:
        return QStringLiteral("a space");
    case 0xA0:
        return QStringLiteral("a no-break space");
    default:
        return QStringLiteral("an invisible character");
    }
}

} // namespace

QString problem(const QString &path)
{
    qsizetype index = 0;
    const QList<uint> points = path.toUcs4();
    for (const uint c : points) {
        ++index;
        const QChar::Category category = QChar::category(c);
        const bool bad = QChar::isSpace(c) || category == QChar::Other_Control ||
                         category == QChar::Other_Format || category == QChar::Separator_Line ||
                         category == QChar::Separator_Paragraph;
        if (bad)
            return QStringLiteral("holds ") + nameOf(c) + QStringLiteral(" (U+") +
                   QString::number(uint(c), 16).toUpper().rightJustified(4, QLatin1Char('0')) +
                   QStringLiteral(") at character ") + QString::number(index);
    }
    return {};
}

} // namespace hotkernel::ExactPath
