// SPDX-License-Identifier: Apache-2.0
#include "base/visibletext.h"

namespace hotkernel {

bool VisibleText::isInvisibleControl(QChar c)
{
    const char16_t u = c.unicode();
    if (c.category() == QChar::Other_Control || c.category() == QChar::Separator_Line ||
        c.category() == QChar::Separator_Paragraph)
        return true;
    // Zero-width joiners stay: scripts such as Persian and emoji sequences need them.
    return u == 0x061C || u == 0x200E || u == 0x200F || (u >= 0x202A && u <= 0x202E) ||
           (u >= 0x2066 && u <= 0x2069);
}

QString VisibleText::strip(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        if (c == QLatin1Char('\t'))
            out.append(QLatin1Char(' '));
        else if (!isInvisibleControl(c))
            out.append(c);
    }
    return out;
}

} // namespace hotkernel
