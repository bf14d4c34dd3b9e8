// SPDX-License-Identifier: Apache-2.0
// The whole of one result (a feed row's job, a bench, gpu_info, an error; also the skill and the
// docs): its text and its JSON in full, selectable and copyable. Modeless. GUI thread.
#pragma once

#include "base/json.h"

#include <QDialog>

class QPlainTextEdit;
class QTabWidget;
class QTextBrowser;

namespace hotkernel {

class ResultDetailsDialog : public QDialog
{
    Q_OBJECT
public:
    // structured: shown pretty-printed on its own tab (none when null).
    ResultDetailsDialog(const QString &title, const QString &headline, const QString &text,
                        const Json &structured, QWidget *parent = nullptr);
    // A Markdown document (the skill, the docs), rendered.
    static ResultDetailsDialog *markdown(const QString &title, const QString &markdown, QWidget *parent);

    QString text() const;
    QString json() const;
    // Brings the JSON tab to the front; false (and nothing changes) when there is none.
    bool showJson();

private:
    QTabWidget *m_tabs;
    QPlainTextEdit *m_text;
    QPlainTextEdit *m_json = nullptr;
};

} // namespace hotkernel
