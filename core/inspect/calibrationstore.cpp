// SPDX-License-Identifier: Apache-2.0
#include "inspect/calibrationstore.h"

#include "base/boundedfile.h"
#include "base/confinedwrite.h"
#include "base/usererror.h"
#include "inspect/cardtable.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

#include <functional>

namespace hotkernel {

namespace {

QString safeFileStem(const QString &s)
{
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]+"));
    QString out = s;
    out.replace(unsafe, QStringLiteral("-"));
    out.replace(QLatin1String(".."), QLatin1String("-")); // no way out of the directory, no hidden files
    while (out.startsWith(QLatin1Char('.')))
        out.remove(0, 1);
    return out.isEmpty() ? QStringLiteral("unknown") : out;
}

QString writeJson(const QString &path, const Json &data, QString *error)
{
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        if (error)
            *error = QStringLiteral("cannot create %1").arg(QFileInfo(path).absolutePath());
        return {};
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return {};
    }
    file.write(QByteArray::fromStdString(data.dump(2)));
    file.write("\n");
    if (!file.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return {};
    }
    return path;
}

std::optional<Json> readJson(const QString &path)
{
    const BoundedFile::Read file =
        BoundedFile::read(path, BoundedFile::kJsonLimit, BoundedFile::Links::Refuse);
    if (!file.ok())
        return std::nullopt;
    auto j = parseJson(file.bytes);
    if (!j || !CalibrationStore::validate(*j).isEmpty())
        return std::nullopt;
    return j;
}

// Every *.json in dir that passes validate(), in no particular order.
std::vector<StoredCalibration> readAllIn(const QString &dir)
{
    std::vector<StoredCalibration> all;
    const QFileInfoList files = QDir(dir).entryInfoList({QStringLiteral("*.json")}, QDir::Files);
    for (const QFileInfo &fi : files) {
        if (auto j = readJson(fi.absoluteFilePath()))
            all.push_back(StoredCalibration{std::move(*j), fi.absoluteFilePath()});
    }
    return all;
}

// Newest first (by the measured_at stamp, then the file time) among those that pass accept.
std::optional<StoredCalibration> newestOf(const std::vector<StoredCalibration> &all,
                                          const std::function<bool(const Json &)> &accept)
{
    std::optional<StoredCalibration> best;
    QString bestStamp;
    for (const StoredCalibration &c : all) {
        if (!accept(c.data))
            continue;
        const QString stamp = stringField(c.data, "measured_at") +
                              QFileInfo(c.origin).lastModified().toUTC().toString(Qt::ISODate);
        if (!best || stamp > bestStamp) {
            best = c;
            bestStamp = stamp;
        }
    }
    return best;
}

std::function<bool(const Json &)> sameUuid(const QString &uuid)
{
    return [uuid](const Json &j) { return stringField(j, "uuid").compare(uuid, Qt::CaseInsensitive) == 0; };
}

std::function<bool(const Json &)> sameCardRow(const QString &cardId)
{
    return [cardId](const Json &j) {
        const CardSpec *row = CardTable::builtin().find(stringField(j, "card"));
        return row && row->id == cardId;
    };
}

// By UUID: the newest recorded copy in the working directory, then the user's file for it.
std::optional<StoredCalibration> byUuid(const CalibrationSnapshot &s, const QString &uuid)
{
    if (uuid.isEmpty())
        return std::nullopt;
    if (auto recorded = newestOf(s.recorded, sameUuid(uuid)))
        return recorded;
    const QString path = CalibrationStore::userPath(uuid);
    for (const StoredCalibration &c : s.user) {
        if (c.origin == path && sameUuid(uuid)(c.data))
            return c;
    }
    return std::nullopt;
}

std::optional<StoredCalibration> byCardRow(const CalibrationSnapshot &s, const QString &cardId)
{
    if (auto recorded = newestOf(s.recorded, sameCardRow(cardId)))
        return recorded;
    return newestOf(s.user, sameCardRow(cardId));
}

} // namespace

QString CalibrationStore::userDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/calibration");
}

QString CalibrationStore::userPath(const QString &uuid)
{
    return userDirectory() + QLatin1Char('/') + safeFileStem(uuid) + QStringLiteral(".json");
}

QString CalibrationStore::recordDirectory(const QString &workDir)
{
    return QDir(workDir).absoluteFilePath(QStringLiteral("results/calibration"));
}

QString CalibrationStore::validate(const Json &c)
{
    if (!c.is_object())
        return QStringLiteral("not a JSON object");
    if (stringField(c, "tool") != QLatin1String("hotkernel-calibrate"))
        return QStringLiteral("not a hotkernel-calibrate result (no \"tool\": \"hotkernel-calibrate\")");
    if (!c.value("ok", false))
        return QStringLiteral("calibration failed: %1")
            .arg(stringField(c, "error", QStringLiteral("no reason given")));
    if (stringField(c, "uuid").isEmpty())
        return QStringLiteral("no card uuid");
    const Json figures = c.value("figures", Json::object());
    const Json copy = figures.is_object() ? figures.value("copy_gbs", Json::object()) : Json::object();
    if (!copy.is_object() || !copy.value("value", Json()).is_number() || copy["value"].get<double>() <= 0)
        return QStringLiteral("no positive figures.copy_gbs.value");
    return {};
}

QString CalibrationStore::save(const Json &calibration, QString *error)
{
    const QString why = validate(calibration);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return {};
    }
    return writeJson(userPath(stringField(calibration, "uuid")), calibration, error);
}

QString CalibrationStore::saveRecord(const Json &calibration, const QString &workDir, QString *error)
{
    const QString why = validate(calibration);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return {};
    }
    const QString cardName = stringField(calibration, "card");
    const CardSpec *row = CardTable::builtin().find(cardName);
    const QString stem = row ? row->id : safeFileStem(CardTable::normalizedName(cardName));
    const QString time = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    const QByteArray bytes = QByteArray::fromStdString(calibration.dump(2)) + '\n';
    try {
        // Inside the working directory, never through a symlink out of it; Existing::Keep never
        // overwrites an earlier record (two calibrations within one second).
        const ConfinedDir dir = ConfinedDir::open(workDir, QStringLiteral("results/calibration"));
        const QString base = stem + QLatin1Char('-') + time;
        QString name = base + QStringLiteral(".json");
        for (int n = 2; !dir.write(name, bytes, ConfinedDir::Existing::Keep); ++n)
            name = base + QLatin1Char('-') + QString::number(n) + QStringLiteral(".json");
        return dir.filePath(name);
    } catch (const UserError &e) {
        if (error)
            *error = e.message();
        return {};
    }
}

CalibrationSnapshot CalibrationStore::snapshot(const QString &workDir)
{
    CalibrationSnapshot s;
    if (!workDir.isEmpty())
        s.recorded = readAllIn(recordDirectory(workDir));
    s.user = readAllIn(userDirectory());
    return s;
}

std::optional<StoredCalibration> CalibrationStore::load(const QString &uuid, const QString &workDir)
{
    if (uuid.isEmpty())
        return std::nullopt;
    return byUuid(snapshot(workDir), uuid);
}

std::optional<StoredCalibration> CalibrationStore::loadForCard(const QString &cardId, const QString &workDir)
{
    return byCardRow(snapshot(workDir), cardId);
}

std::optional<MeasuredCeilings> CalibrationStore::forDevice(const QString &name, const QString &uuid,
                                                            const QString &workDir)
{
    return forDevice(snapshot(workDir), name, uuid);
}

std::optional<MeasuredCeilings> CalibrationStore::forDevice(const CalibrationSnapshot &snapshot,
                                                            const QString &name, const QString &uuid)
{
    std::optional<StoredCalibration> stored = byUuid(snapshot, uuid);
    if (!stored) {
        const CardSpec *row = name.isEmpty() ? nullptr : CardTable::builtin().find(name);
        if (row)
            stored = byCardRow(snapshot, row->id);
    }
    if (!stored)
        return std::nullopt;
    return ceilings(*stored);
}

MeasuredCeilings CalibrationStore::ceilings(const StoredCalibration &c)
{
    MeasuredCeilings m;
    m.origin = c.origin;
    m.measuredAt = stringField(c.data, "measured_at");
    m.uuid = stringField(c.data, "uuid");
    m.card = stringField(c.data, "card");
    const Json figures = c.data.value("figures", Json::object());
    auto figure = [&](const char *key) -> std::optional<double> {
        const Json f = figures.value(key, Json::object());
        if (f.is_object() && f.value("value", Json()).is_number() && f["value"].get<double>() > 0)
            return f["value"].get<double>();
        return std::nullopt;
    };
    if (auto copy = figure("copy_gbs")) {
        m.bandwidthBytesPerSecond = *copy * 1e9;
        m.bandwidthMethod = stringField(figures.value("copy_gbs", Json::object()), "method");
    }
    for (const QString &dtype : CardTable::dtypes()) {
        if (auto peak = figure((dtype + QStringLiteral("_tflops")).toLatin1().constData()))
            m.peakFlopsPerSecond[dtype] = *peak * 1e12;
    }
    return m;
}

} // namespace hotkernel
