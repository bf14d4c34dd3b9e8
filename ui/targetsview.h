// SPDX-License-Identifier: Apache-2.0
// The targets pane: baseline/candidate pairs of the working directory with their latest bench
// and leaderboard standing; the window's target actions sit above the table. GUI thread.
#pragma once

#include <QWidget>

class QAction;
class QLabel;
class QTableView;
class QToolBar;

namespace hotkernel {

class TargetsModel;

class TargetsView : public QWidget
{
    Q_OBJECT
public:
    TargetsView(TargetsModel *model, QWidget *parent = nullptr);
    QTableView *table() const { return m_table; }
    QString currentTarget() const;
    void selectTarget(const QString &name);

Q_SIGNALS:
    void targetSelected(const QString &name);
    void scriptOpened(const QString &path);

private:
    TargetsModel *m_model;
    QTableView *m_table;
    QLabel *m_empty;
};

} // namespace hotkernel
