// SPDX-License-Identifier: Apache-2.0
#include "windowscreenshots.h"

#include "agentfeedmodel.h"
#include "agentfeedview.h"
#include "mainwindow.h"
#include "resultdetailsdialog.h"
#include "session/toolspec.h"

#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QLayout>

#include <functional>

namespace hotkernel::WindowScreenshots {

namespace {

void activateLayout(QWidget *w)
{
    if (w->layout())
        w->layout()->activate();
}

// Each pane; a tabbed pane behind another (Source behind SASS) is raised for its picture, then
// put back.
void savePanes(const QList<QDockWidget *> &docks, const std::function<void(QWidget *, const QString &)> &save)
{
    QList<QDockWidget *> raised;
    for (QDockWidget *d : docks) {
        if (!d->visibleRegion().isEmpty())
            raised.append(d);
    }
    for (QDockWidget *d : docks) {
        if (d->visibleRegion().isEmpty()) {
            d->raise();
            activateLayout(d);
        }
        save(d, d->objectName());
    }
    for (QDockWidget *d : std::as_const(raised))
        d->raise();
}

// The details a double-click opens on the latest bench row: its whole result, then its JSON.
void saveDetails(MainWindow *window, const std::function<void(QWidget *, const QString &)> &save)
{
    for (int row = window->feedModel()->rowCount() - 1; row >= 0; --row) {
        if (window->feedModel()->runAt(row).kind != ToolSpec::ResultKind::Bench)
            continue;
        if (QDialog *dialog = window->feedView()->openDetails(row)) {
            activateLayout(dialog);
            save(dialog, QStringLiteral("dialog-details"));
            auto *details = qobject_cast<ResultDetailsDialog *>(dialog);
            if (details && details->showJson())
                save(dialog, QStringLiteral("dialog-details-json"));
            dialog->close();
        }
        break;
    }
}

} // namespace

QStringList write(MainWindow *window, const QList<QDockWidget *> &docks, const QString &dir,
                  const QString &suffix)
{
    QDir().mkpath(dir);
    QStringList written;
    const auto save = [&](QWidget *w, const QString &name) {
        const QString tail = suffix.isEmpty() ? QString() : QLatin1Char('-') + suffix;
        const QString path = QDir(dir).filePath(name + tail + QStringLiteral(".png"));
        if (w->grab().save(path, "PNG"))
            written.append(path);
    };
    save(window, QStringLiteral("window"));
    // The window on a 1280x720 screen, laid out as it opens there.
    const QSize full = window->size();
    window->resize(1280, 720);
    window->resetLayout();
    activateLayout(window);
    save(window, QStringLiteral("window-1280x720"));
    window->resize(full);
    window->resetLayout();
    activateLayout(window);
    savePanes(docks, save);
    // A dialog as the toolbar opens it on the selected target: summary, fields, units.
    if (QDialog *dialog = window->verifyDialog()) {
        activateLayout(dialog);
        save(dialog, QStringLiteral("dialog-verify"));
        dialog->close();
    }
    saveDetails(window, save);
    return written;
}

} // namespace hotkernel::WindowScreenshots
