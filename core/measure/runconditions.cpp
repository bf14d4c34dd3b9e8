// SPDX-License-Identifier: Apache-2.0
#include "measure/runconditions.h"

#include <algorithm>
#include <cmath>

namespace hotkernel {

namespace {

std::optional<double> mhz(const Json &j)
{
    const auto it = j.find("sm_clock_mhz");
    return j.is_object() && it != j.end() && it->is_number() ? std::optional<double>(it->get<double>())
                                                             : std::nullopt;
}

QStringList reasonsOf(const Json &j)
{
    QStringList out;
    if (const auto it = j.is_object() ? j.find("clock_event_reasons") : j.end();
        j.is_object() && it != j.end())
        if (it->is_array())
            for (const Json &r : *it)
                if (r.is_string())
                    out << QString::fromStdString(r.get<std::string>());
    return out;
}

QString describeBusy(const std::vector<BusyProcess> &busy)
{
    QStringList parts;
    for (const BusyProcess &p : busy)
        parts << QStringLiteral("pid %1 (SM up to %2%)").arg(p.pid).arg(p.smPercent);
    return parts.join(QStringLiteral(", "));
}

} // namespace

std::optional<double> RunConditions::clockMhz() const
{
    if (clockBeforeMhz && clockAfterMhz)
        return (*clockBeforeMhz + *clockAfterMhz) / 2;
    return clockBeforeMhz ? clockBeforeMhz : clockAfterMhz;
}

Json RunConditions::json() const
{
    const auto number = [](const std::optional<double> &v) { return v ? Json(*v) : Json(); };
    Json busy = Json::array();
    for (const BusyProcess &p : frozenBusy)
        busy.push_back(Json{{"pid", p.pid}, {"sm_percent_max", p.smPercent}});
    Json j{{"sm_clock_mhz", Json::array({number(clockBeforeMhz), number(clockAfterMhz)})},
           {"clock_event_reasons", toJson(clockReasons)},
           {"other_side_busy", busy}};
    if (!clocksUnknown.isEmpty())
        j["clocks_unknown"] = toStd(clocksUnknown);
    if (!frozenUnknown.isEmpty())
        j["other_side_unknown"] = toStd(frozenUnknown);
    return j;
}

RunConditions RunConditions::fromProbes(const Json &clocksBefore, const Json &utilisationAfter,
                                        const QList<long long> &frozenPids, qint64 runStartUs,
                                        qint64 runEndUs)
{
    RunConditions c;
    c.clockBeforeMhz = mhz(clocksBefore);
    c.clockAfterMhz = mhz(utilisationAfter);
    c.clockReasons = reasonsOf(clocksBefore);
    for (const QString &r : reasonsOf(utilisationAfter))
        if (!c.clockReasons.contains(r))
            c.clockReasons << r;
    if (!c.clockBeforeMhz && !c.clockAfterMhz)
        c.clocksUnknown =
            stringField(clocksBefore, "reason", QStringLiteral("NVML did not report the SM clock"));
    if (!utilisationAfter.value("known", false)) {
        c.frozenUnknown =
            stringField(utilisationAfter, "reason", QStringLiteral("NVML's per-process samples are unknown"));
        return c;
    }
    if (frozenPids.isEmpty()) {
        c.frozenUnknown = QStringLiteral("no process of the other side was stopped");
        return c;
    }
    const Json period = utilisationAfter.value("sample_period_us", Json());
    const qint64 periodUs = period.is_number() && period.get<qint64>() > 0
                                ? period.get<qint64>()
                                : RunConditionRule::LongestSamplePeriodUs;
    const qint64 from = runStartUs + periodUs;
    if (runEndUs <= from) {
        c.frozenUnknown = QStringLiteral("the run (%1 ms) was not longer than one NVML sample period (%2 ms)")
                              .arg((runEndUs - runStartUs) / 1000)
                              .arg(periodUs / 1000);
        return c;
    }
    for (const Json &p : utilisationAfter.value("processes", Json::array())) {
        const long long pid = p.value("pid", 0LL);
        if (frozenPids.contains(pid) && p.value("last_us", 0LL) >= from &&
            (p.value("sm_percent_max", 0) > 0 || p.value("mem_percent_max", 0) > 0))
            c.frozenBusy.push_back({pid, p.value("sm_percent_max", 0)});
    }
    return c;
}

QString RunConditionRule::pairProblem(const RunConditions &b, const RunConditions &c, double tolerance)
{
    QStringList problems;
    if (!b.frozenBusy.empty())
        problems << QStringLiteral("the candidate's stopped processes computed on the GPU while the "
                                   "baseline ran: %1")
                        .arg(describeBusy(b.frozenBusy));
    if (!c.frozenBusy.empty())
        problems << QStringLiteral("the baseline's stopped processes computed on the GPU while the "
                                   "candidate ran: %1")
                        .arg(describeBusy(c.frozenBusy));
    const std::optional<double> cb = b.clockMhz();
    const std::optional<double> cc = c.clockMhz();
    if (cb && cc && std::max(*cb, *cc) > 0 && std::abs(*cb - *cc) / std::max(*cb, *cc) > tolerance)
        problems << QStringLiteral("the baseline ran at an SM clock of %1 MHz and the candidate at %2 MHz "
                                   "(more than %3% apart; clock-event reasons: baseline %4, candidate %5)")
                        .arg(*cb, 0, 'f', 0)
                        .arg(*cc, 0, 'f', 0)
                        .arg(tolerance * 100, 0, 'g', 3)
                        .arg(b.clockReasons.isEmpty() ? QStringLiteral("none")
                                                      : b.clockReasons.join(QLatin1Char('+')),
                             c.clockReasons.isEmpty() ? QStringLiteral("none")
                                                      : c.clockReasons.join(QLatin1Char('+')));
    return problems.join(QStringLiteral("; "));
}

bool RunConditionRule::frozenSideComputed(const RunConditions &b, const RunConditions &c)
{
    return !b.frozenBusy.empty() || !c.frozenBusy.empty();
}

} // namespace hotkernel
