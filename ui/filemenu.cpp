// SPDX-License-Identifier: Apache-2.0
#include "filemenu.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>

namespace hotkernel::FileMenu {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("hotkernel::MainWindow", text);
}

// A modeless file dialog (open(), never exec()): path reaches onChosen when one is chosen.
void openDialog(QMainWindow *window, const QString &title, const QString &root, const QString &filter,
                QFileDialog::FileMode mode, const RecentPlaces::Open &onChosen)
{
    auto *dialog = new QFileDialog(window, title, root, filter);
    dialog->setFileMode(mode);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(dialog, &QFileDialog::fileSelected, window, onChosen);
    dialog->open();
}

} // namespace

void addTo(QMainWindow *window, const QString &root, const RecentPlaces::Open &openDirectory,
           const RecentPlaces::Open &openReport)
{
    auto *file = window->menuBar()->addMenu(tr("&File"));
    auto *directory = file->addAction(tr("Open &directory..."), QKeySequence::Open, window, [=] {
        openDialog(window, tr("Open a working directory"), root, {}, QFileDialog::Directory,
                   [openDirectory](const QString &path) {
                       RecentPlaces::add(RecentPlaces::kDirectories, path);
                       openDirectory(path);
                   });
    });
    auto *report = file->addAction(tr("Open &report..."), window, [=] {
        openDialog(window, tr("Open a kernel report"), root,
                   tr("Reports (*.csv *.jsonl *.json *.txt);;All files (*)"), QFileDialog::ExistingFile,
                   openReport);
    });
    directory->setObjectName(QStringLiteral("actionOpenDirectory"));
    report->setObjectName(QStringLiteral("actionOpenReport"));
    auto *recent = file->addMenu(tr("Open &recent"));
    recent->setObjectName(QStringLiteral("menuRecent"));
    QObject::connect(recent, &QMenu::aboutToShow, window,
                     [=] { RecentPlaces::fill(recent, root, openDirectory, openReport); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, window, &QWidget::close);
}

} // namespace hotkernel::FileMenu
