// SPDX-License-Identifier: Apache-2.0
#include "inspect/nvidiasmiparser.h"

#include <QRegularExpression>

#include <algorithm>

namespace hotkernel {

namespace {

QStringList splitLine(const QByteArray &line)
{
    // nvidia-smi separates with ", " and never quotes; device and process names hold no commas.
    QStringList cells;
    for (const QByteArray &cell : line.split(','))
        cells.append(QString::fromUtf8(cell).trimmed());
    return cells;
}

bool isMissing(const QString &v)
{
    return v.isEmpty() || v.startsWith(QLatin1Char('[')) || v == QLatin1String("N/A");
}

Json number(const QString &v)
{
    if (isMissing(v))
        return nullptr;
    // Without nounits the value carries its unit: "143771 MiB", "700.00 W".
    static const QRegularExpression leading(QStringLiteral("^[-+]?[0-9]+(\\.[0-9]+)?"));
    const QRegularExpressionMatch m = leading.match(v);
    if (!m.hasMatch())
        return nullptr;
    bool ok = false;
    const double d = m.captured(0).toDouble(&ok);
    if (!ok)
        return nullptr;
    if (d == static_cast<double>(static_cast<long long>(d)))
        return static_cast<long long>(d);
    return d;
}

Json text(const QString &v)
{
    return isMissing(v) ? Json(nullptr) : Json(toStd(v));
}

QString headerName(const QString &cell)
{
    // "memory.total [MiB]" -> "memory.total"; the header prints some fields under their long
    // names (asked clocks.sm, printed clocks.current.sm): map them back to what was asked.
    static const QRegularExpression unit(QStringLiteral("\\s*\\[.*\\]$"));
    static const std::map<QString, QString> longNames = {
        {QStringLiteral("clocks.current.sm"), QStringLiteral("clocks.sm")},
        {QStringLiteral("clocks.current.memory"), QStringLiteral("clocks.mem")},
        {QStringLiteral("clocks.current.graphics"), QStringLiteral("clocks.gr")},
        {QStringLiteral("clocks.max.memory"), QStringLiteral("clocks.max.mem")},
        {QStringLiteral("clocks.max.graphics"), QStringLiteral("clocks.max.gr")},
        {QStringLiteral("used_gpu_memory"), QStringLiteral("used_memory")},
    };
    QString s = cell;
    s.remove(unit);
    s = s.trimmed();
    const auto it = longNames.find(s);
    return it == longNames.end() ? s : it->second;
}

Json toProbe(const std::map<QString, QString> &cells)
{
    auto get = [&](const char *key) {
        const auto it = cells.find(QString::fromLatin1(key));
        return it == cells.end() ? QString() : it->second;
    };
    Json reasons = Json::array();
    QString mask = get("clocks_event_reasons.active");
    if (mask.isEmpty())
        mask = get("clocks_throttle_reasons.active");
    if (!isMissing(mask)) {
        bool ok = false;
        const quint64 bits = mask.toULongLong(&ok, 16);
        if (ok)
            reasons = toJson(NvidiaSmiParser::clockEventReasons(bits));
    }
    return Json{{"name", text(get("name"))},
                {"uuid", text(get("uuid"))},
                {"driver", text(get("driver_version"))},
                {"cuda_driver_version", nullptr},
                {"memory_total_mib", number(get("memory.total"))},
                {"memory_used_mib", number(get("memory.used"))},
                {"power_limit_w", number(get("power.limit"))},
                {"compute_capability", text(get("compute_cap"))},
                {"max_sm_clock_mhz", number(get("clocks.max.sm"))},
                {"sm_clock_mhz", number(get("clocks.sm"))},
                {"mem_clock_mhz", number(get("clocks.mem"))},
                {"temperature_c", number(get("temperature.gpu"))},
                {"utilization_pct", number(get("utilization.gpu"))},
                {"pci_bus_id", text(get("pci.bus_id"))},
                {"throttle_reasons", reasons}};
}

} // namespace

QStringList NvidiaSmiParser::queryFields()
{
    return QStringLiteral(
               "name,uuid,driver_version,memory.total,memory.used,power.limit,compute_cap,clocks.max.sm,"
               "clocks.sm,clocks.mem,temperature.gpu,clocks_event_reasons.active,utilization.gpu,pci.bus_id")
        .split(QLatin1Char(','));
}

QStringList NvidiaSmiParser::appFields()
{
    return {QStringLiteral("pid"), QStringLiteral("process_name"), QStringLiteral("used_memory")};
}

std::vector<Json> NvidiaSmiParser::parseGpus(const QByteArray &csv, const QStringList &fields)
{
    std::vector<Json> gpus;
    QStringList columns = fields;
    bool first = true;
    for (const QByteArray &raw : csv.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (line.isEmpty())
            continue;
        const QStringList cells = splitLine(line);
        if (first) {
            first = false;
            // A header line names only queried fields; a data line never does.
            const bool isHeader = std::all_of(
                cells.begin(), cells.end(), [&](const QString &c) { return fields.contains(headerName(c)); });
            if (isHeader) {
                columns.clear();
                for (const QString &c : cells)
                    columns.append(headerName(c));
                continue;
            }
        }
        if (cells.size() != columns.size())
            continue; // an error line ("Field ... is not a valid field to query") or a truncated one
        std::map<QString, QString> byName;
        for (int i = 0; i < columns.size(); ++i)
            byName[columns[i]] = cells[i];
        gpus.push_back(toProbe(byName));
    }
    return gpus;
}

std::vector<Json> NvidiaSmiParser::parseApps(const QByteArray &csv)
{
    std::vector<Json> apps;
    for (const QByteArray &raw : csv.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (line.isEmpty() || line.startsWith("pid"))
            continue;
        const QStringList cells = splitLine(line);
        if (cells.size() < 3)
            continue;
        bool ok = false;
        const qint64 pid = cells[0].toLongLong(&ok);
        if (!ok)
            continue;
        apps.push_back(
            Json{{"pid", pid}, {"process_name", toStd(cells[1])}, {"used_memory_mib", number(cells[2])}});
    }
    return apps;
}

QStringList NvidiaSmiParser::clockEventReasons(quint64 mask)
{
    // Bit values from NVML's public nvmlClocksEventReasons (nvml.h).
    static const std::pair<quint64, const char *> bits[] = {
        {0x1, "gpu_idle"},
        {0x2, "applications_clocks_setting"},
        {0x4, "sw_power_cap"},
        {0x8, "hw_slowdown"},
        {0x10, "sync_boost"},
        {0x20, "sw_thermal_slowdown"},
        {0x40, "hw_thermal_slowdown"},
        {0x80, "hw_power_brake_slowdown"},
        {0x100, "display_clock_setting"},
    };
    QStringList names;
    for (const auto &[bit, name] : bits) {
        if (mask & bit)
            names.append(QString::fromLatin1(name));
    }
    return names;
}

} // namespace hotkernel
