// SPDX-License-Identifier: Apache-2.0
// VerifyRun::text: a verify result as the CLI prints it and the MCP result's text mirrors it.
#include "measure/verifyrun.h"

#include "measure/physicalfloor.h"
#include "measure/runisolation.h"

namespace hotkernel {

namespace {
QString num(const Json &v, int precision = 5)
{
    return v.is_number() ? QString::number(v.get<double>(), 'g', precision) : QStringLiteral("-");
}
// A speedup with no interval: the times spread too widely to bound a positive ratio (statistics.cpp).
QString interval(const Json &v, const Json &speedup)
{
    if (v.is_array() && v.size() == 2)
        return QStringLiteral("[%1, %2]").arg(num(v[0], 4), num(v[1], 4));
    return speedup.is_number() ? QStringLiteral("not computable") : QStringLiteral("-");
}
QString row(const QString &name, const Json &s)
{
    return QStringLiteral("  %1 %2 %3 %4 %5\n")
        .arg(name.leftJustified(10), num(s["mean_ms"]).rightJustified(11),
             num(s["std_ms"], 3).rightJustified(10), num(s["min_ms"]).rightJustified(11),
             QString::number(s.value("n", 0)).rightJustified(4));
}
QString yesNo(const Json &v)
{
    return v.is_boolean() && v.get<bool>() ? QStringLiteral("reused") : QStringLiteral("new");
}
} // namespace

QString VerifyRun::text(const Json &r)
{
    QString t;
    t += QStringLiteral("verify %1 vs %2 (target %3)\n")
             .arg(toQt(r.value("baseline", std::string())), toQt(r.value("candidate", std::string())),
                  r["target"].is_string() ? toQt(r["target"].get<std::string>()) : QStringLiteral("?"));
    t += QStringLiteral("  %1 %2 %3 %4 %5\n")
             .arg(QString().leftJustified(10), QStringLiteral("mean ms").rightJustified(11),
                  QStringLiteral("± std").rightJustified(10), QStringLiteral("min ms").rightJustified(11),
                  QStringLiteral("n").rightJustified(4));
    t += row(QStringLiteral("baseline"), r["baseline_stats"]);
    t += row(QStringLiteral("candidate"), r["candidate_stats"]);
    t += QStringLiteral("verdict:  %1: %2\n")
             .arg(toQt(r["verdict"].get<std::string>()).toUpper(), toQt(r["reason"].get<std::string>()));
    t += QStringLiteral("speedup:  %1   95% %2   99% %3\n")
             .arg(r["speedup"].is_number()
                      ? num(r["speedup"], 4) + QLatin1Char('x')
                      : QStringLiteral("- (none: %1)").arg(toQt(r["verdict"].get<std::string>())),
                  interval(r["speedup_ci95"], r["speedup"]), interval(r["speedup_ci99"], r["speedup"]));
    t += QStringLiteral("rule:     %1 (alpha %2, min effect %3%)   n %4 %5 + %6 warm-up   mode %7 (workers: "
                        "baseline %8, candidate %9)\n")
             .arg(toQt(r["rule"].get<std::string>()), num(r["alpha"]),
                  num(Json(r["min_effect"].get<double>() * 100)))
             .arg(r["n"].get<int>())
             .arg(r["adaptive"].get<bool>() ? QStringLiteral("(adaptive)") : QStringLiteral("(fixed)"))
             .arg(r["warmup"].get<int>())
             .arg(toQt(r["mode"].get<std::string>()), yesNo(r["workers_reused"]["baseline"]),
                  yesNo(r["workers_reused"]["candidate"]));
    const Json &contract = r["contract"];
    t += QStringLiteral("device:   %1 %2, timer %3, wall %4 s\n")
             .arg(contract.contains("device") && contract["device"].is_string()
                      ? toQt(contract["device"].get<std::string>())
                      : QStringLiteral("?"),
                  contract.contains("device_name") && contract["device_name"].is_string()
                      ? toQt(contract["device_name"].get<std::string>())
                      : QString(),
                  contract.contains("timer") && contract["timer"].is_string()
                      ? toQt(contract["timer"].get<std::string>())
                      : QStringLiteral("?"),
                  num(r["wall_s"], 3));
    if (const QString floor = PhysicalFloor::summary(r.value("physical_floor", Json())); !floor.isEmpty())
        t += QStringLiteral("floor:    %1\n").arg(floor);
    if (const Json &confinement = r.value("confinement", Json()); confinement.is_object())
        t += QStringLiteral("confined: candidate %1; baseline %2\n")
                 .arg(stringField(confinement, "candidate"), stringField(confinement, "baseline"));
    if (const QString still = RunIsolation::summary(r); !still.isEmpty())
        t += QStringLiteral("frozen:   %1\n").arg(still);
    for (const Json &m : r["mismatches"])
        t += QStringLiteral("mismatch: %1\n").arg(toQt(m.get<std::string>()));
    for (const Json &f : r["failed_runs"])
        t += QStringLiteral("failed:   %1 run %2: %3\n")
                 .arg(toQt(f["side"].get<std::string>()))
                 .arg(f["run"].get<int>())
                 .arg(toQt(f["mismatch"].get<std::string>()));
    for (const Json &w : r["warnings"])
        t += QStringLiteral("warning:  %1\n").arg(toQt(w.get<std::string>()));
    return t;
}

} // namespace hotkernel
