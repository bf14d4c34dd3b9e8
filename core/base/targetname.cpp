// SPDX-License-Identifier: Apache-2.0
#include "base/targetname.h"

#include "base/usererror.h"

namespace hotkernel {

QString TargetName::rule()
{
    return QStringLiteral("1 to %1 characters, without '/', '\\', '..', control or invisible formatting "
                          "characters, and not starting with '.'")
        .arg(MaxLength);
}

QString TargetName::problem(const QString &name)
{
    if (name.trimmed().isEmpty())
        return QStringLiteral("the name is empty");
    if (name.size() > MaxLength)
        return QStringLiteral("the name is %1 characters long, more than %2").arg(name.size()).arg(MaxLength);
    if (name.contains(QLatin1Char('/')) || name.contains(QLatin1Char('\\')))
        return QStringLiteral("the name '%1' contains a path separator").arg(name);
    if (name.contains(QStringLiteral("..")))
        return QStringLiteral("the name '%1' contains '..'").arg(name);
    if (name.startsWith(QLatin1Char('.')))
        return QStringLiteral("the name '%1' starts with '.'").arg(name);
    for (const QChar c : name)
        if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format ||
            c.category() == QChar::Separator_Line || c.category() == QChar::Separator_Paragraph)
            return QStringLiteral(
                       "the name contains a control character or an invisible formatting character (U+%1)")
                .arg(uint(c.unicode()), 4, 16, QLatin1Char('0'));
    return {};
}

void TargetName::require(const QString &name, const QString &what)
{
    if (const QString why = problem(name); !why.isEmpty())
        throw UserError(
            QStringLiteral("%1 is not usable: %2. It becomes a file or folder name under the "
                           "working directory, so it must be %3; give a plain name such as rmsnorm.")
                .arg(what, why, rule()));
}

} // namespace hotkernel
