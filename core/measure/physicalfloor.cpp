// SPDX-License-Identifier: Apache-2.0
#include "measure/physicalfloor.h"

#include <algorithm>
#include <cmath>

namespace hotkernel {

namespace {

QString threeDigits(double v)
{
    return QString::number(v, 'g', 3);
}

QString timeText(double ms)
{
    if (ms < 1e-3)
        return threeDigits(ms * 1e6) + QStringLiteral(" ns");
    if (ms < 1)
        return threeDigits(ms * 1e3) + QStringLiteral(" us");
    return threeDigits(ms) + QStringLiteral(" ms");
}

// Binary units: target sizes are powers of two, and "64 MiB" reads as the shape it came from.
QString bytesText(double bytes)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    return threeDigits(bytes) + QLatin1Char(' ') + QLatin1String(units[u]);
}

// Decimal units, as bandwidth and FLOP rates are quoted on spec sheets.
QString decimalText(double v, const QString &unit)
{
    static const char *const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    int p = 0;
    while (std::abs(v) >= 1000 && p < 6) {
        v /= 1000;
        ++p;
    }
    return threeDigits(v) + QLatin1Char(' ') + QLatin1String(prefixes[p]) + unit;
}

QString ceilingText(const FloorCeilings &c, bool memory, const QString &dtype)
{
    const double value = memory ? *c.bandwidthBytesPerSecond : *c.peakFlopsPerSecond;
    const QString figure =
        memory ? decimalText(value, QStringLiteral("B/s")) : decimalText(value, QStringLiteral("FLOP/s"));
    const QString source = memory ? c.bandwidthSource : c.peakSource;
    const QString what = memory ? QStringLiteral("copy rate") : dtype + QStringLiteral(" peak");
    if (source == QLatin1String("calibration"))
        return QStringLiteral("the measured %1 is %2").arg(what, figure);
    return QStringLiteral("the spec %1 of the %2 is %3")
        .arg(memory ? QStringLiteral("bandwidth") : what, c.card, figure);
}

Json optionalNumber(const std::optional<double> &v, double scale = 1)
{
    return v ? Json(*v * scale) : Json();
}

} // namespace

FloorCeilings PhysicalFloor::ceilings(const CardSpec *card, const std::optional<MeasuredCeilings> &measured,
                                      const QString &dtype)
{
    FloorCeilings c;
    c.card = card ? card->name : (measured ? measured->card : QString());
    QStringList capped;
    // A measured figure is used only up to the spec sheet's: no card beats its own datasheet, so a
    // higher figure is a broken or planted calibration and would lower the floor for everyone.
    auto withinSpec = [&](double measuredValue, std::optional<double> spec, const QString &what,
                          const QString &unit) -> std::optional<double> {
        if (spec && measuredValue > *spec) {
            capped.append(QStringLiteral("the calibration's %1 (%2) is above the spec's %3 for the %4, so "
                                         "the spec is used")
                              .arg(what, decimalText(measuredValue, unit), decimalText(*spec, unit), c.card));
            return std::nullopt;
        }
        return measuredValue;
    };
    const std::optional<double> specBandwidth = card && card->bandwidthBytesPerSecond()
                                                    ? std::optional<double>(card->bandwidthBytesPerSecond())
                                                    : std::nullopt;
    std::optional<double> measuredBandwidth;
    if (measured && measured->bandwidthBytesPerSecond)
        measuredBandwidth = withinSpec(*measured->bandwidthBytesPerSecond, specBandwidth,
                                       QStringLiteral("copy rate"), QStringLiteral("B/s"));
    if (measuredBandwidth) {
        c.bandwidthBytesPerSecond = measuredBandwidth;
        c.bandwidthSource = QStringLiteral("calibration");
        c.calibration = measured->origin;
    } else if (specBandwidth) {
        c.bandwidthBytesPerSecond = specBandwidth;
        c.bandwidthSource = QStringLiteral("spec");
    }
    // An fp32 target may legitimately run on tensor cores (TF32, or split-bf16 schemes accurate to
    // fp32), so its compute floor is the TF32 peak: a floor too high would call honest kernels
    // impossible.
    const QString key = dtype.compare(QLatin1String("fp32"), Qt::CaseInsensitive) == 0
                            ? QStringLiteral("tf32")
                            : dtype.toLower();
    const std::optional<double> specPeak =
        card && CardTable::dtypes().contains(key) && card->peakFlopsPerSecond(key)
            ? std::optional<double>(card->peakFlopsPerSecond(key))
            : std::nullopt;
    std::optional<double> measuredPeak;
    if (measured && measured->peakFlopsPerSecond.count(key))
        measuredPeak = withinSpec(measured->peakFlopsPerSecond.at(key), specPeak,
                                  key + QStringLiteral(" peak"), QStringLiteral("FLOP/s"));
    if (measuredPeak) {
        c.peakFlopsPerSecond = measuredPeak;
        c.peakSource = QStringLiteral("calibration");
        c.calibration = measured->origin;
    } else if (specPeak) {
        c.peakFlopsPerSecond = specPeak;
        c.peakSource = QStringLiteral("spec");
    }
    c.capped = capped.join(QStringLiteral("; "));
    return c;
}

FloorWork PhysicalFloor::work(const Json &contract)
{
    FloorWork w;
    if (!contract.is_object())
        return w;
    auto positive = [&](const char *key) -> std::optional<double> {
        const Json v = contract.value(key, Json());
        if (v.is_number() && v.get<double>() > 0)
            return v.get<double>();
        return std::nullopt;
    };
    w.bytes = positive("bytes");
    w.flops = positive("flops");
    w.dtype = stringField(contract, "dtype");
    w.device = stringField(contract, "device");
    return w;
}

FloorCheck PhysicalFloor::check(const FloorCeilings &c, const FloorWork &w, double perCallMs,
                                double tolerance)
{
    FloorCheck r;
    if (w.device == QLatin1String("cpu")) {
        r.note = QStringLiteral("no floor: the target ran on the CPU, and the floor covers GPU cards");
        return r;
    }
    if (!w.bytes) {
        r.note = QStringLiteral("no floor: the result line reports no byte count for one call");
        return r;
    }
    if (!c.bandwidthBytesPerSecond) {
        r.note = c.card.isEmpty()
                     ? QStringLiteral("no floor: the card is not in the card table and has no calibration")
                     : QStringLiteral("no floor: no bandwidth known for the %1").arg(c.card);
        return r;
    }
    r.applied = true;
    const double memoryMs = *w.bytes / *c.bandwidthBytesPerSecond * 1e3;
    const double computeMs = w.flops && c.peakFlopsPerSecond ? *w.flops / *c.peakFlopsPerSecond * 1e3 : 0.0;
    const bool memory = memoryMs >= computeMs;
    r.floorMs = std::max(memoryMs, computeMs);
    r.bound = memory ? QStringLiteral("memory") : QStringLiteral("compute");
    if (!(perCallMs * tolerance < r.floorMs))
        return r;
    r.violated = true;
    const double seconds = perCallMs * 1e-3;
    const QString impossible =
        memory ? QStringLiteral("faster than this card can move these bytes: %1 for %2 is %3")
                     .arg(timeText(perCallMs), bytesText(*w.bytes),
                          decimalText(*w.bytes / seconds, QStringLiteral("B/s")))
               : QStringLiteral("faster than this card can compute these flops: %1 for %2 is %3")
                     .arg(timeText(perCallMs), decimalText(*w.flops, QStringLiteral("FLOP")),
                          decimalText(*w.flops / seconds, QStringLiteral("FLOP/s")));
    const bool spec = (memory ? c.bandwidthSource : c.peakSource) != QLatin1String("calibration");
    r.message =
        QStringLiteral("%1, %2; the floor allows up to %3x that, since read-only streams beat the copy "
                       "rate.%4 If the target's min_bytes or flops overstate what one call must do, "
                       "that is the target author's to correct in its definition; otherwise the time "
                       "is not real (a cached, lazily computed or patched result).")
            .arg(impossible, ceilingText(c, memory, w.dtype), QString::number(tolerance, 'g', 3),
                 spec ? QStringLiteral(" This card has no calibration: `hotkernel calibrate` measures it.")
                      : QString());
    return r;
}

PhysicalFloor::Report PhysicalFloor::judge(const FloorCeilings &c, const FloorWork &w,
                                           const std::vector<std::pair<QString, std::vector<double>>> &sides,
                                           double tolerance)
{
    Report report;
    Json &j = report.json;
    // Every side has the same work and ceilings; only the times differ.
    const FloorCheck shape = check(c, w, 1.0, tolerance);
    j["applied"] = shape.applied;
    j["note"] = shape.note.isEmpty() ? Json() : Json(toStd(shape.note));
    j["tolerance"] = tolerance;
    j["floor_ms"] = shape.applied ? Json(shape.floorMs) : Json();
    j["bound"] = shape.applied ? Json(toStd(shape.bound)) : Json();
    j["bytes"] = optionalNumber(w.bytes);
    j["flops"] = optionalNumber(w.flops);
    j["bandwidth_gbs"] = optionalNumber(c.bandwidthBytesPerSecond, 1e-9);
    j["bandwidth_source"] = c.bandwidthSource.isEmpty() ? Json() : Json(toStd(c.bandwidthSource));
    j["peak_tflops"] = optionalNumber(c.peakFlopsPerSecond, 1e-12);
    j["peak_source"] = c.peakSource.isEmpty() ? Json() : Json(toStd(c.peakSource));
    j["calibration"] = c.calibration.isEmpty() ? Json() : Json(toStd(c.calibration));
    j["card"] = c.card.isEmpty() ? Json() : Json(toStd(c.card));
    j["capped"] = c.capped.isEmpty() ? Json() : Json(toStd(c.capped));
    Json checked = Json::object();
    for (const auto &[side, samples] : sides) {
        if (samples.empty())
            continue;
        const double fastest = *std::min_element(samples.begin(), samples.end());
        const FloorCheck r = check(c, w, fastest, tolerance);
        checked[toStd(side)] = Json{{"min_ms", fastest},
                                    {"violated", r.violated},
                                    {"message", r.violated ? Json(toStd(r.message)) : Json()}};
        if (r.violated && report.violation.isEmpty())
            report.violation = QStringLiteral("the %1: %2").arg(side, r.message);
    }
    j["checked"] = checked;
    return report;
}

QString PhysicalFloor::summary(const Json &f)
{
    if (!f.is_object())
        return {};
    if (!f.value("applied", false))
        return stringField(f, "note");
    const bool memory = stringField(f, "bound") == QLatin1String("memory");
    const double ceiling = memory ? f.value("bandwidth_gbs", 0.0) * 1e9 : f.value("peak_tflops", 0.0) * 1e12;
    return QStringLiteral("%1 per call (%2-bound, %3 from %4, tolerance %5x)")
        .arg(timeText(f.value("floor_ms", 0.0)), stringField(f, "bound"),
             decimalText(ceiling, memory ? QStringLiteral("B/s") : QStringLiteral("FLOP/s")),
             stringField(f, memory ? "bandwidth_source" : "peak_source"),
             QString::number(f.value("tolerance", 0.0), 'g', 3));
}

} // namespace hotkernel
