// SPDX-License-Identifier: Apache-2.0
#include "sourcetextview.h"

#include "highlighting.h"

#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#include <QEvent>
#include <QFontDatabase>

namespace hotkernel {

SourceTextView::SourceTextView(QWidget *parent)
    : QPlainTextEdit(parent), m_highlighter(new KSyntaxHighlighting::SyntaxHighlighter(document()))
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    applyTheme();
}

void SourceTextView::setSource(const QString &text, const QString &fileName)
{
    m_fileName = fileName;
    m_highlighter->setDefinition(Highlighting::definitionForFileName(fileName));
    setPlainText(text);
}

QString SourceTextView::definitionName() const
{
    return m_highlighter->definition().name();
}

void SourceTextView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
    QPlainTextEdit::changeEvent(event);
}

void SourceTextView::applyTheme()
{
    m_highlighter->setTheme(Highlighting::themeForPalette(palette()));
    m_highlighter->rehighlight();
}

} // namespace hotkernel
