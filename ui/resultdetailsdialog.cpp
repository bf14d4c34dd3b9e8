// SPDX-License-Identifier: Apache-2.0
#include "resultdetailsdialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace hotkernel {

namespace {

QPlainTextEdit *readOnlyText(const QString &text)
{
    auto *edit = new QPlainTextEdit;
    edit->setReadOnly(true);
    edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    edit->setPlainText(text);
    return edit;
}

} // namespace

ResultDetailsDialog::ResultDetailsDialog(const QString &title, const QString &headline, const QString &text,
                                         const Json &structured, QWidget *parent)
    : QDialog(parent), m_tabs(new QTabWidget(this)), m_text(readOnlyText(text))
{
    setWindowTitle(title);
    setAttribute(Qt::WA_DeleteOnClose);
    auto *top = new QLabel(headline, this);
    top->setWordWrap(true);
    top->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tabs->addTab(m_text, tr("Text"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto *copyText = buttons->addButton(tr("Copy text"), QDialogButtonBox::ActionRole);
    connect(copyText, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(this->text()); });
    if (!structured.is_null()) {
        m_json = readOnlyText(toQt(structured.dump(2)));
        m_tabs->addTab(m_json, tr("JSON"));
        auto *copyJson = buttons->addButton(tr("Copy JSON"), QDialogButtonBox::ActionRole);
        connect(copyJson, &QPushButton::clicked, this,
                [this] { QApplication::clipboard()->setText(json()); });
    }
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(top);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(buttons);
    resize(760, 560);
}

ResultDetailsDialog *ResultDetailsDialog::markdown(const QString &title, const QString &markdown,
                                                   QWidget *parent)
{
    auto *dialog = new ResultDetailsDialog(title, QString(), markdown, Json(), parent);
    auto *browser = new QTextBrowser;
    browser->setOpenExternalLinks(true);
    browser->setMarkdown(markdown);
    dialog->m_tabs->insertTab(0, browser, tr("Document"));
    dialog->m_tabs->setTabText(1, tr("Source"));
    dialog->m_tabs->setCurrentIndex(0);
    return dialog;
}

QString ResultDetailsDialog::text() const
{
    return m_text->toPlainText();
}

QString ResultDetailsDialog::json() const
{
    return m_json ? m_json->toPlainText() : QString();
}

bool ResultDetailsDialog::showJson()
{
    if (!m_json)
        return false;
    m_tabs->setCurrentWidget(m_json);
    return true;
}

} // namespace hotkernel
