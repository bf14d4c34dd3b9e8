// SPDX-License-Identifier: Apache-2.0
#include "recentplaces.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace hotkernel::RecentPlaces {

namespace {
constexpr int kRecentCount = 8;
}

void add(const QString &key, const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value(key).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    settings.setValue(key, recent.mid(0, kRecentCount));
}

void fill(QMenu *menu, const QString &current, const Open &openDirectory, const Open &openReport)
{
    menu->clear();
    QSettings settings;
    for (const QString &dir : settings.value(kDirectories).toStringList()) {
        if (dir != current)
            menu->addAction(QDir::toNativeSeparators(dir), menu,
                            [openDirectory, dir] { openDirectory(dir); });
    }
    const QStringList reports = settings.value(kReports).toStringList();
    if (!reports.isEmpty())
        menu->addSeparator();
    for (const QString &report : reports)
        menu->addAction(QFileInfo(report).fileName(), menu, [openReport, report] { openReport(report); });
    if (menu->isEmpty())
        menu->addAction(QCoreApplication::translate("hotkernel::MainWindow", "(nothing yet)"))
            ->setEnabled(false);
}

} // namespace hotkernel::RecentPlaces
