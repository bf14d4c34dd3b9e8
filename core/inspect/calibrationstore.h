// SPDX-License-Identifier: Apache-2.0
// Where hotkernel-calibrate results live: one file per card UUID under the user's data
// directory (<AppDataLocation>/calibration/<uuid>.json), and optionally a dated copy in the
// working directory (results/calibration/<card>-<time>.json) that roofline prefers when its UUID
// matches. Small blocking file I/O: call from a worker thread (QtConcurrent) or a CLI-only path.
#pragma once

#include "base/json.h"
#include "inspect/roofline.h"

#include <QString>

#include <optional>
#include <vector>

namespace hotkernel {

struct StoredCalibration
{
    Json data;      // the object hotkernel-calibrate printed
    QString origin; // the file it was read from
};

// Every valid calibration of both places, read at one moment (issue 41): a verify reads the store
// before its workers start, so nothing a worker writes afterwards reaches its floor.
struct CalibrationSnapshot
{
    std::vector<StoredCalibration> recorded; // workDir/results/calibration/*.json
    std::vector<StoredCalibration> user;     // the user's data directory
};

class CalibrationStore
{
public:
    static QString userDirectory();
    static QString userPath(const QString &uuid);
    static QString recordDirectory(const QString &workDir);

    // Empty when calibration is a usable hotkernel-calibrate result; else what is wrong with it.
    static QString validate(const Json &calibration);

    // Write to the user's data directory; returns the path, or empty with *error set.
    static QString save(const Json &calibration, QString *error = nullptr);
    // Write a dated copy under workDir/results/calibration/; returns the path.
    static QString saveRecord(const Json &calibration, const QString &workDir, QString *error = nullptr);

    // The calibration of the card with this UUID: the newest matching file in
    // workDir/results/calibration/ first, then the user's data directory.
    static std::optional<StoredCalibration> load(const QString &uuid, const QString &workDir);
    // Without a UUID (a card other than the one here): the newest calibration, in either place,
    // that ran on a card of this card-table row.
    static std::optional<StoredCalibration> loadForCard(const QString &cardId, const QString &workDir);

    // The card a GPU snapshot names: its own calibration by UUID, else one of the same card-table
    // row; nullopt when neither exists or the name matches no row.
    static std::optional<MeasuredCeilings> forDevice(const QString &name, const QString &uuid,
                                                     const QString &workDir);
    // Both places read now; the forDevice below then picks from what was read, reading nothing.
    static CalibrationSnapshot snapshot(const QString &workDir);
    static std::optional<MeasuredCeilings> forDevice(const CalibrationSnapshot &snapshot, const QString &name,
                                                     const QString &uuid);

    static MeasuredCeilings ceilings(const StoredCalibration &calibration);
};

} // namespace hotkernel
