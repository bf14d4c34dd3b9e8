// SPDX-License-Identifier: Apache-2.0
#include "inspect/ncukerneldetails.h"

#include "base/usererror.h"
#include "inspect/csvreader.h"
#include "inspect/ncuvalue.h"

#include <QRegularExpression>

#include <algorithm>

namespace hotkernel {

namespace {

qsizetype column(const CsvReader &csv, QByteArrayView name)
{
    for (qsizetype i = 0; i < csv.size(); ++i) {
        if (csv.field(i) == name)
            return i;
    }
    return -1;
}

struct Metric
{
    const char *ncuName;
    const char *key;
};

// The details page's names (ncu 2025.3, --set full) for the figures the kernel table lacks.
constexpr Metric kMetrics[] = {
    {"Duration", "duration_ns"},
    {"Elapsed Cycles", "elapsed_cycles"},
    {"SM Frequency", "sm_clock_mhz"},
    {"DRAM Frequency", "dram_clock_mhz"},
    {"Theoretical Occupancy", "theoretical_occupancy_pct"},
    {"Achieved Occupancy", "achieved_occupancy_pct"},
    {"Waves Per SM", "waves_per_sm"},
    {"L1/TEX Cache Throughput", "l1_throughput_pct"},
    {"L2 Cache Throughput", "l2_throughput_pct"},
    {"DRAM Throughput", "dram_throughput_pct"},
    {"Compute (SM) Throughput", "sm_throughput_pct"},
    {"Memory Throughput", "memory_throughput_pct"},
};

std::optional<double> scaled(const char *key, QByteArrayView unit, double value)
{
    const QByteArrayView k(key);
    if (k == "duration_ns") {
        const auto f = NcuValue::nanosecondsPer(unit);
        return f ? std::optional<double>(value * *f) : std::nullopt;
    }
    if (k == "sm_clock_mhz" || k == "dram_clock_mhz") {
        const QByteArray u = unit.toByteArray().toLower();
        if (u == "ghz")
            return value * 1000;
        if (u == "mhz")
            return value;
        if (u == "hz")
            return value / 1e6;
        return std::nullopt;
    }
    if (k.endsWith("_pct") && !unit.isEmpty() && unit != "%")
        return std::nullopt; // "Memory Throughput" is also printed in bytes/s by some sections
    return value;
}

// A rule's advice without its figures: launches of one kernel word it alike with other numbers
// ("spends 7.3 cycles" / "spends 7.2 cycles"), and that is one finding, not two.
QString adviceKey(const NcuRuleResult &r)
{
    static const QRegularExpression figures(QStringLiteral("[0-9][0-9.,]*"));
    return QString(r.description).remove(figures);
}

} // namespace

QStringList NcuKernelDetails::metricKeys()
{
    QStringList keys;
    for (const Metric &m : kMetrics)
        keys.append(QString::fromLatin1(m.key));
    return keys;
}

std::vector<NcuLaunchDetail> NcuKernelDetails::parse(QByteArrayView data)
{
    CsvReader csv(data);
    qsizetype id = -1, kernel = -1, grid = -1, block = -1, section = -1, metric = -1, unit = -1, value = -1,
              ruleName = -1, ruleType = -1, ruleDescription = -1, speedupType = -1, speedup = -1;
    while (csv.readRow()) {
        metric = column(csv, "Metric Name");
        kernel = column(csv, "Kernel Name");
        if (metric >= 0 && kernel >= 0)
            break;
    }
    if (metric < 0 || kernel < 0)
        throw UserError(
            QStringLiteral("This is not an ncu details page: no \"Kernel Name\" and \"Metric Name\" "
                           "columns. Export one with `ncu --import R.ncu-rep --csv --page details`."));
    id = column(csv, "ID");
    grid = column(csv, "Grid Size");
    block = column(csv, "Block Size");
    section = column(csv, "Section Name");
    unit = column(csv, "Metric Unit");
    value = column(csv, "Metric Value");
    ruleName = column(csv, "Rule Name");
    ruleType = column(csv, "Rule Type");
    ruleDescription = column(csv, "Rule Description");
    speedupType = column(csv, "Estimated Speedup Type");
    speedup = column(csv, "Estimated Speedup");
    const auto text = [&csv](qsizetype i) { return i >= 0 && i < csv.size() ? csv.text(i) : QString(); };
    std::vector<NcuLaunchDetail> out;
    while (csv.readRow()) {
        if (csv.isBlank() || csv.size() <= std::max(kernel, metric))
            continue;
        const QString launchId = id >= 0 ? csv.text(id) : QString();
        if (out.empty() || (id >= 0 ? out.back().id != launchId : out.back().name != csv.text(kernel))) {
            NcuLaunchDetail launch;
            launch.id = launchId;
            launch.name = csv.text(kernel);
            launch.grid = text(grid);
            launch.block = text(block);
            out.push_back(std::move(launch));
        }
        NcuLaunchDetail &launch = out.back();
        const QString rule = text(ruleName);
        if (!rule.isEmpty()) {
            NcuRuleResult r;
            r.section = text(section);
            r.name = rule;
            r.type = text(ruleType);
            r.description = text(ruleDescription);
            r.speedupType = text(speedupType);
            if (speedup >= 0 && speedup < csv.size())
                r.speedupPct = NcuValue::number(csv.field(speedup));
            launch.rules.push_back(std::move(r));
            continue;
        }
        const QByteArrayView name = csv.field(metric);
        for (const Metric &m : kMetrics) {
            if (name != QByteArrayView(m.ncuName) || launch.metrics.count(QString::fromLatin1(m.key)))
                continue;
            const std::optional<double> v =
                value >= 0 && value < csv.size() ? NcuValue::number(csv.field(value)) : std::nullopt;
            if (!v)
                break;
            if (const auto s = scaled(m.key, unit >= 0 ? csv.field(unit) : QByteArrayView(), *v))
                launch.metrics[QString::fromLatin1(m.key)] = *s;
            break;
        }
    }
    return out;
}

Json NcuKernelDetails::kernelJson(const std::vector<const NcuLaunchDetail *> &launches, bool perLaunch)
{
    Json metrics = Json::object();
    for (const QString &key : metricKeys()) {
        double sum = 0;
        int n = 0;
        for (const NcuLaunchDetail *l : launches) {
            if (const auto it = l->metrics.find(key); it != l->metrics.end()) {
                sum += it->second;
                ++n;
            }
        }
        if (n > 0)
            metrics[toStd(key)] = sum / n;
    }
    std::vector<NcuRuleResult> rules;
    for (const NcuLaunchDetail *l : launches) {
        for (const NcuRuleResult &r : l->rules) {
            auto it = std::find_if(rules.begin(), rules.end(), [&r](const NcuRuleResult &seen) {
                return seen.name == r.name && seen.section == r.section && adviceKey(seen) == adviceKey(r);
            });
            if (it == rules.end())
                rules.push_back(r);
            else if (r.speedupPct && (!it->speedupPct || *r.speedupPct > *it->speedupPct))
                *it = r;
        }
    }
    std::stable_sort(rules.begin(), rules.end(), [](const NcuRuleResult &a, const NcuRuleResult &b) {
        return a.speedupPct.value_or(-1) > b.speedupPct.value_or(-1);
    });
    Json ruleJson = Json::array();
    for (const NcuRuleResult &r : rules) {
        Json j{{"section", toStd(r.section)},
               {"rule", toStd(r.name)},
               {"type", toStd(r.type)},
               {"description", toStd(r.description)}};
        if (r.speedupPct) {
            j["estimated_speedup_pct"] = *r.speedupPct;
            j["speedup_type"] = toStd(r.speedupType);
        }
        ruleJson.push_back(std::move(j));
    }
    Json out{{"launches_profiled", launches.size()}, {"metrics", metrics}, {"rules", ruleJson}};
    if (perLaunch) {
        Json rows = Json::array();
        for (const NcuLaunchDetail *l : launches) {
            Json m = Json::object();
            for (const auto &[key, v] : l->metrics)
                m[toStd(key)] = v;
            rows.push_back(Json{
                {"id", toStd(l->id)}, {"grid", toStd(l->grid)}, {"block", toStd(l->block)}, {"metrics", m}});
        }
        out["launches"] = rows;
    }
    return out;
}

} // namespace hotkernel
