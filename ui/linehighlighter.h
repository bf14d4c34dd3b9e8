// SPDX-License-Identifier: Apache-2.0
// Highlights a listing line by line through KSyntaxHighlighting into plain format spans, once per
// line, so views can cache them in QTextLayouts (hotspot's disassembly approach). GUI thread.
#pragma once

#include <KSyntaxHighlighting/AbstractHighlighter>
#include <KSyntaxHighlighting/Format>
#include <KSyntaxHighlighting/State>
#include <KSyntaxHighlighting/Theme>
#include <QTextLayout>
#include <QVector>

namespace hotkernel {

class LineHighlighter : public KSyntaxHighlighting::AbstractHighlighter
{
public:
    struct Span
    {
        int offset;
        int length;
        KSyntaxHighlighting::Format format;
    };

    LineHighlighter(const KSyntaxHighlighting::Definition &definition,
                    const KSyntaxHighlighting::Theme &theme);

    // Highlights lines in order (the state carries over, e.g. into a /* comment */).
    QVector<QVector<Span>> highlightLines(const QStringList &lines);
    // The formats of one line's spans for a QTextLayout under the current theme.
    QVector<QTextLayout::FormatRange> formatRanges(const QVector<Span> &spans) const;

protected:
    void applyFormat(int offset, int length, const KSyntaxHighlighting::Format &format) override;

private:
    QVector<Span> m_current;
};

} // namespace hotkernel
