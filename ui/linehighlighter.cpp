// SPDX-License-Identifier: Apache-2.0
#include "linehighlighter.h"

#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Theme>

namespace hotkernel {

LineHighlighter::LineHighlighter(const KSyntaxHighlighting::Definition &definition,
                                 const KSyntaxHighlighting::Theme &theme)
{
    // The theme first: setDefinition() may already highlight with it.
    setTheme(theme);
    setDefinition(definition);
}

QVector<QVector<LineHighlighter::Span>> LineHighlighter::highlightLines(const QStringList &lines)
{
    QVector<QVector<Span>> result;
    result.reserve(lines.size());
    KSyntaxHighlighting::State state;
    for (const QString &line : lines) {
        m_current.clear();
        state = highlightLine(QStringView(line), state);
        result.append(m_current);
    }
    m_current.clear();
    return result;
}

QVector<QTextLayout::FormatRange> LineHighlighter::formatRanges(const QVector<Span> &spans) const
{
    const KSyntaxHighlighting::Theme t = theme();
    QVector<QTextLayout::FormatRange> ranges;
    ranges.reserve(spans.size());
    for (const Span &span : spans) {
        if (span.format.isDefaultTextStyle(t))
            continue;
        QTextCharFormat format;
        if (span.format.hasTextColor(t))
            format.setForeground(span.format.textColor(t));
        if (span.format.isBold(t))
            format.setFontWeight(QFont::Bold);
        if (span.format.isItalic(t))
            format.setFontItalic(true);
        ranges.append({span.offset, span.length, format});
    }
    return ranges;
}

void LineHighlighter::applyFormat(int offset, int length, const KSyntaxHighlighting::Format &format)
{
    if (length > 0)
        m_current.append({offset, length, format});
}

} // namespace hotkernel
