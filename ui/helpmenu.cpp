// SPDX-License-Identifier: Apache-2.0
#include "helpmenu.h"

#include "resultdetailsdialog.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

namespace hotkernel::HelpMenu {

namespace {

// The markdown files Help shows, bundled as resources (ui/CMakeLists.txt).
const QString kHelpRoot = QStringLiteral(":/hotkernel-help");

QString tr(const char *text)
{
    return QCoreApplication::translate("hotkernel::MainWindow", text);
}

QString readResource(const QString &path)
{
    QFile file(path); // not a named file: a resource compiled into the binary
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

void showAbout(QMainWindow *window)
{
    auto *box =
        new QMessageBox(QMessageBox::NoIcon, tr("About hotkernel"),
                        tr("<b>hotkernel %1</b><p>A workbench for finding hot GPU kernels, reading their "
                           "SASS, checking the roofline and verifying rewrites as correct and faster. "
                           "The window, the CLI and agents (over MCP: <code>hotkernel mcp</code>) "
                           "share one session.</p><p>Apache-2.0; binaries linking Qt Charts are "
                           "distributed under GPL-3.0 terms.</p>")
                            .arg(QStringLiteral(HOTKERNEL_VERSION)),
                        QMessageBox::Close, window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->open();
}

} // namespace

void addTo(QMainWindow *window)
{
    auto *help = window->menuBar()->addMenu(tr("&Help"));
    auto *skill = help->addAction(tr("The agent &skill (kernel-speedrun)"), window, [window] {
        ResultDetailsDialog::markdown(
            tr("The kernel-speedrun skill"),
            readResource(kHelpRoot + QStringLiteral("/skills/kernel-speedrun/SKILL.md")), window)
            ->show();
    });
    skill->setObjectName(QStringLiteral("actionSkill"));
    auto *docs = help->addMenu(tr("&Docs"));
    docs->setObjectName(QStringLiteral("menuDocs"));
    QDir docsDir(kHelpRoot + QStringLiteral("/docs"));
    for (const QString &name : docsDir.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name)) {
        const QString path = docsDir.filePath(name);
        docs->addAction(name, window, [window, name, path] {
            ResultDetailsDialog::markdown(name, readResource(path), window)->show();
        });
    }
    help->addSeparator();
    auto *about = help->addAction(tr("&About hotkernel"), window, [window] { showAbout(window); });
    about->setObjectName(QStringLiteral("actionAbout"));
}

} // namespace hotkernel::HelpMenu
