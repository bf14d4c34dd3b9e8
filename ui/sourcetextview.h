// SPDX-License-Identifier: Apache-2.0
// Plain text (PTX, a target's Python) highlighted by KSyntaxHighlighting, following the palette.
// GUI thread.
#pragma once

#include <QPlainTextEdit>

namespace KSyntaxHighlighting {
class SyntaxHighlighter;
}

namespace hotkernel {

class SourceTextView : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit SourceTextView(QWidget *parent = nullptr);
    // fileName picks the definition (".py", ".ptx", ".sass").
    void setSource(const QString &text, const QString &fileName);
    QString definitionName() const;
    QString fileName() const { return m_fileName; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyTheme();
    KSyntaxHighlighting::SyntaxHighlighter *m_highlighter;
    QString m_fileName;
};

} // namespace hotkernel
