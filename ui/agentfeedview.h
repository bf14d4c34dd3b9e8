// SPDX-License-Identifier: Apache-2.0
// The session's jobs as they happen (the agent's requests and the window's own), a progress bar per
// running job, Cancel, which goes through Session::cancel like MCP's notifications/cancelled, and a
// details window for any row (double-click): its full result text and JSON.
// GUI thread.
#pragma once

#include <QWidget>

class QDialog;
class QPushButton;
class QTableView;

namespace hotkernel {

class AgentFeedModel;
class Session;

class AgentFeedView : public QWidget
{
    Q_OBJECT
public:
    AgentFeedView(Session *session, AgentFeedModel *model, QWidget *parent = nullptr);
    QTableView *table() const { return m_table; }
    QPushButton *cancelButton() const { return m_cancel; }
    // Cancels the selected job when it runs, else the newest running one (no need to find and
    // select it first); false when nothing runs.
    bool cancelSelected();
    // The details of a row: the whole result text and JSON (double-click); null for no row.
    QDialog *openDetails(int row);

private:
    void updateButtons();

    Session *m_session;
    AgentFeedModel *m_model;
    QTableView *m_table;
    QPushButton *m_cancel;
};

} // namespace hotkernel
