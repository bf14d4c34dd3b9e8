// SPDX-License-Identifier: Apache-2.0
#include "base/visibletext.h"

namespace hotkernel {

bool VisibleText::isInvisibleControl(QChar c)
{
    const char16_t u = c.unicode();
    if (c.category() == QChar::Other_Control || c.category() == QChar::Separator_Line ||
        c.category() == QChar::Separator_Paragraph)
        return true;
    // Zero-width characters that join nothing go too (U+200B space, U+2060 word joiner, U+FEFF, the
    // invisible operators U+2061-2064, U+180E): they only hide text or split words unseen. The
    // zero-width (non-)joiners U+200C and U+200D stay: Persian and emoji sequences need them.
    return u == 0x061C || u == 0x200E || u == 0x200F || (u >= 0x202A && u <= 0x202E) ||
           (u >= 0x2066 && u <= 0x2069) || u == 0x200B || (u >= 0x2060 && u <= 0x2064) || u == 0xFEFF ||
           u == 0x180E;
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
