// SPDX-License-Identifier: Apache-2.0
// The workbench window over one Session (placeholder until the window issue lands).
#pragma once

#include <QMainWindow>

namespace hotkernel {

class Session;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(Session *session, QWidget *parent = nullptr);

private:
    Session *m_session;
};

} // namespace hotkernel
