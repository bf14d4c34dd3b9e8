// SPDX-License-Identifier: Apache-2.0
#include "mainwindow.h"

#include <KSyntaxHighlighting/Repository>
#include <QChartView>
#include <QLabel>

namespace hotkernel {

MainWindow::MainWindow(Session *session, QWidget *parent)
    : QMainWindow(parent)
    , m_session(session)
{
    setWindowTitle(QStringLiteral("hotkernel"));
    setCentralWidget(new QChartView(this));
}

} // namespace hotkernel
