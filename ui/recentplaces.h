// SPDX-License-Identifier: Apache-2.0
// File > Open recent: the directories and reports opened lately, newest first, kept in QSettings
// under "recent/directories" and "recent/reports". GUI thread.
#pragma once

#include <QString>

#include <functional>

class QMenu;

namespace hotkernel::RecentPlaces {

inline const QString kDirectories = QStringLiteral("recent/directories");
inline const QString kReports = QStringLiteral("recent/reports");

// Puts path first in the list under key, which keeps the newest few.
void add(const QString &key, const QString &path);

using Open = std::function<void(const QString &path)>;
// Fills menu with the recent directories (but current, the one open now) and reports; choosing
// one calls openDirectory or openReport with its path.
void fill(QMenu *menu, const QString &current, const Open &openDirectory, const Open &openReport);

} // namespace hotkernel::RecentPlaces
