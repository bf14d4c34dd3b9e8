// SPDX-License-Identifier: Apache-2.0
#include "inspect/roofline.h"

#include "base/usererror.h"

#include <QMap>

#include <algorithm>
#include <cmath>

namespace hotkernel {

namespace {

RooflineCeilingsUsed ceilings(double peak, double bandwidth, double flops, double bytes)
{
    RooflineCeilingsUsed c;
    c.peakFlopsPerSecond = peak;
    c.bandwidthBytesPerSecond = bandwidth;
    c.ridge = peak / bandwidth;
    c.computeMs = flops / peak * 1e3;
    c.memoryMs = bytes / bandwidth * 1e3;
    c.attainableMs = std::max(c.computeMs, c.memoryMs);
    // At exactly the ridge both roofs meet; call it compute-bound (more bandwidth would not help).
    c.bound = flops / bytes < c.ridge ? QStringLiteral("memory") : QStringLiteral("compute");
    return c;
}

QString fmt(double v, int precision = 3)
{
    return QString::number(v, 'g', precision);
}

QString ms(double v)
{
    if (v < 1.0)
        return QString::number(v * 1e3, 'f', 2) + QStringLiteral(" us");
    return QString::number(v, 'f', 3) + QStringLiteral(" ms");
}

} // namespace

RooflineEstimate Roofline::estimate(const RooflineQuery &q)
{
    const QString dtype = q.dtype.toLower();
    if (!CardTable::dtypes().contains(dtype))
        throw UserError(QStringLiteral("unknown dtype '%1'; use one of: %2.")
                            .arg(q.dtype, CardTable::dtypes().join(QStringLiteral(", "))));
    if (q.ridgeOnly && q.measuredMs)
        throw UserError(QStringLiteral("ms needs flops and bytes: give all three, or none for the ridge "
                                       "point alone."));
    if (!q.ridgeOnly && !(q.bytes > 0))
        throw UserError(
            QStringLiteral("bytes must be greater than 0 (got %1): give the bytes one call must move "
                           "to and from memory, inputs read plus outputs written.")
                .arg(q.bytes));
    if (!(q.flops >= 0))
        throw UserError(
            QStringLiteral("flops must be 0 or more (got %1): give the floating-point operations of one "
                           "call (2*M*N*K for a matmul), or 0 for pure data movement.")
                .arg(q.flops));
    if (q.measuredMs && !(*q.measuredMs > 0))
        throw UserError(
            QStringLiteral("ms must be greater than 0 (got %1): give the measured time of one call in "
                           "milliseconds, or leave it out.")
                .arg(*q.measuredMs));
    const auto peak = q.card.peakFlopsPerSecond(dtype);
    if (!peak) {
        QStringList known;
        for (const QString &d : CardTable::dtypes()) {
            if (q.card.peakFlopsPerSecond(d))
                known.append(d);
        }
        const CardFigure *f = q.card.figure(dtype + QStringLiteral("_tflops"));
        const QString why = f && !f->note.isEmpty() ? QStringLiteral(" (%1)").arg(f->note) : QString();
        throw UserError(QStringLiteral("%1 has no %2 peak in the card table%3; use one of: %4.")
                            .arg(q.card.name, dtype, why, known.join(QStringLiteral(", "))));
    }
    const auto bandwidth = q.card.bandwidthBytesPerSecond();
    if (!bandwidth)
        throw UserError(QStringLiteral("%1 has no memory bandwidth in the card table.").arg(q.card.name));

    RooflineEstimate e;
    // Without a kernel the roofs are still there: a unit of bytes yields the ridge, and the
    // kernel's own figures (bound, times) are cleared.
    const double bytes = q.ridgeOnly ? 1.0 : q.bytes;
    const double flops = q.ridgeOnly ? 0.0 : q.flops;
    const auto forKernel = [&q](RooflineCeilingsUsed c) {
        if (q.ridgeOnly) {
            c.bound.clear();
            c.computeMs = c.memoryMs = c.attainableMs = 0;
        }
        return c;
    };
    e.intensity = flops / bytes;
    e.spec = forKernel(ceilings(*peak, *bandwidth, flops, bytes));
    e.spec.peakFromSpec = true;
    if (q.measured && q.measured->bandwidthBytesPerSecond && *q.measured->bandwidthBytesPerSecond > 0) {
        const auto it = q.measured->peakFlopsPerSecond.find(dtype);
        const bool measuredPeak = it != q.measured->peakFlopsPerSecond.end() && it->second > 0;
        e.measured = forKernel(
            ceilings(measuredPeak ? it->second : *peak, *q.measured->bandwidthBytesPerSecond, flops, bytes));
        e.measured->peakFromSpec = !measuredPeak;
    }
    if (q.measuredMs) {
        const double seconds = *q.measuredMs * 1e-3;
        e.achievedFlopsPerSecond = q.flops / seconds;
        e.achievedBytesPerSecond = q.bytes / seconds;
        e.specFloorFraction = e.spec.attainableMs / *q.measuredMs;
        if (e.measured)
            e.measuredFloorFraction = e.measured->attainableMs / *q.measuredMs;
    }
    return e;
}

RooflineData Roofline::chartData(const RooflineQuery &q, const RooflineEstimate &e)
{
    RooflineData data;
    data.card = q.card.name;
    data.dtype = q.dtype.toLower();
    data.ceilings.push_back(
        {QStringLiteral("DRAM %1 GB/s (spec)").arg(fmt(e.spec.bandwidthBytesPerSecond / 1e9, 4)),
         QStringLiteral("bandwidth"), QStringLiteral("spec"), e.spec.bandwidthBytesPerSecond});
    data.ceilings.push_back(
        {QStringLiteral("%1 %2 TFLOP/s (spec)").arg(data.dtype, fmt(e.spec.peakFlopsPerSecond / 1e12, 4)),
         QStringLiteral("compute"), QStringLiteral("spec"), e.spec.peakFlopsPerSecond});
    if (e.measured) {
        data.ceilings.push_back(
            {QStringLiteral("copy %1 GB/s (measured)").arg(fmt(e.measured->bandwidthBytesPerSecond / 1e9, 4)),
             QStringLiteral("bandwidth"), QStringLiteral("measured"), e.measured->bandwidthBytesPerSecond});
        if (!e.measured->peakFromSpec)
            data.ceilings.push_back({QStringLiteral("%1 GEMM %2 TFLOP/s (measured)")
                                         .arg(data.dtype, fmt(e.measured->peakFlopsPerSecond / 1e12, 4)),
                                     QStringLiteral("compute"), QStringLiteral("measured"),
                                     e.measured->peakFlopsPerSecond});
    }
    // A log-log chart cannot show a point at zero intensity or zero throughput.
    if (e.achievedFlopsPerSecond && *e.achievedFlopsPerSecond > 0 && e.intensity > 0) {
        const QString label = q.label.isEmpty() ? QStringLiteral("kernel") : q.label;
        data.points.push_back(
            {label, QStringLiteral("kernel"), e.intensity, *e.achievedFlopsPerSecond, label});
    }
    return data;
}

int Roofline::addKernelPoints(RooflineData &data, const KernelTable &table, const QString &kind)
{
    QMap<QString, int> missing; // reason -> kernels
    int added = 0;
    for (const KernelStat &k : table.kernels) {
        QString why;
        if (!k.flops || !k.dramBytes)
            why = table.source == QLatin1String("ncu-raw")
                      ? QStringLiteral(
                            "no FLOP or DRAM byte counters in the report (profile with ncu --set full)")
                      : QStringLiteral(
                            "the %1 report has no FLOP or DRAM byte counts (export ncu's raw page of a "
                            "--set full profile)")
                            .arg(table.source.isEmpty() ? QStringLiteral("kernel") : table.source);
        else if (k.tensorPipeUsed)
            why = QStringLiteral("tensor-core work, which ncu's FP pipe counters do not count");
        else if (!(*k.flops > 0) || !std::isfinite(*k.flops))
            why = QStringLiteral("no floating-point work (pure data movement has no FLOP/s point)");
        else if (!(*k.dramBytes > 0) || !std::isfinite(*k.dramBytes))
            why = QStringLiteral("no DRAM traffic measured (intensity undefined)");
        else if (!(k.avgNs > 0) || !std::isfinite(k.avgNs))
            why = QStringLiteral("no measured time");
        if (!why.isEmpty()) {
            ++missing[why];
            continue;
        }
        data.points.push_back({k.name, kind, *k.flops / *k.dramBytes, *k.flops / (k.avgNs * 1e-9), k.name});
        ++added;
    }
    for (auto it = missing.cbegin(); it != missing.cend(); ++it)
        data.notes.append(QStringLiteral("%1 of %2 kernel%3 without a point: %4")
                              .arg(it.value())
                              .arg(table.kernels.size())
                              .arg(table.kernels.size() == 1 ? QString() : QStringLiteral("s"), it.key()));
    return added;
}

QString Roofline::toText(const RooflineQuery &q, const RooflineEstimate &e)
{
    QString t;
    t += QStringLiteral("card       %1 (%2), dtype %3\n").arg(q.card.name, q.card.id, q.dtype.toLower());
    if (q.ridgeOnly)
        t += QStringLiteral("work       none given: the ridge point alone (pass flops and bytes for a "
                            "kernel's bound and floor)\n");
    else
        t += QStringLiteral("work       %1 FLOP, %2 bytes, intensity %3 FLOP/byte\n")
                 .arg(fmt(q.flops, 4), fmt(q.bytes, 4), fmt(e.intensity, 4));
    t += QStringLiteral("\n%1 %2 %3 %4 %5 %6\n")
             .arg(QStringLiteral("ceilings"), -10)
             .arg(QStringLiteral("TFLOP/s"), 9)
             .arg(QStringLiteral("GB/s"), 8)
             .arg(QStringLiteral("ridge"), 8)
             .arg(QStringLiteral("bound"), 8)
             .arg(QStringLiteral("floor"), 10);
    auto row = [&](const QString &name, const RooflineCeilingsUsed &c) {
        t += QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                 .arg(name, -10)
                 .arg(fmt(c.peakFlopsPerSecond / 1e12, 5) +
                          (c.peakFromSpec && name != QLatin1String("spec") ? QStringLiteral("*") : QString()),
                      9)
                 .arg(fmt(c.bandwidthBytesPerSecond / 1e9, 5), 8)
                 .arg(fmt(c.ridge, 4), 8)
                 .arg(q.ridgeOnly ? QStringLiteral("-") : c.bound, 8)
                 .arg(q.ridgeOnly ? QStringLiteral("-") : ms(c.attainableMs), 10);
    };
    row(QStringLiteral("spec"), e.spec);
    if (e.measured)
        row(QStringLiteral("measured"), *e.measured);
    else
        t += QStringLiteral("measured   (no calibration for this card: run `hotkernel calibrate` on it)\n");
    if (e.measured && e.measured->peakFromSpec)
        t += QStringLiteral("* no measured %1 peak: the spec peak stands in\n").arg(q.dtype.toLower());
    if (q.measured && e.measured)
        // Ceilings given as arguments have no measurement time: no empty "()".
        t += q.measured->measuredAt.isEmpty()
                 ? QStringLiteral("calibration %1\n").arg(q.measured->origin)
                 : QStringLiteral("calibration %1 (%2)\n").arg(q.measured->origin, q.measured->measuredAt);
    if (q.measuredMs) {
        t += QStringLiteral("\nachieved   %1 per call: %2 TFLOP/s, %3 GB/s; %4% of the spec floor")
                 .arg(ms(*q.measuredMs), fmt(*e.achievedFlopsPerSecond / 1e12, 4),
                      fmt(*e.achievedBytesPerSecond / 1e9, 4),
                      QString::number(*e.specFloorFraction * 100, 'f', 1));
        if (e.measuredFloorFraction)
            t += QStringLiteral(", %1% of the measured floor")
                     .arg(QString::number(*e.measuredFloorFraction * 100, 'f', 1));
        t += QLatin1Char('\n');
    }
    return t;
}

} // namespace hotkernel
