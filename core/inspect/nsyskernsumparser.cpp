// SPDX-License-Identifier: Apache-2.0
#include "inspect/nsyskernsumparser.h"

#include "base/usererror.h"
#include "inspect/csvreader.h"
#include "inspect/kernelaggregator.h"
#include "inspect/ncuvalue.h"

namespace hotkernel {

namespace {

// The first column whose header is one of names (nsys renamed them between releases).
qsizetype column(const CsvReader &csv, std::initializer_list<QByteArrayView> names)
{
    for (const QByteArrayView name : names) {
        for (qsizetype i = 0; i < csv.size(); ++i) {
            if (csv.field(i).trimmed() == name)
                return i;
        }
    }
    return -1;
}

} // namespace

KernelTable NsysKernSumParser::parse(QByteArrayView data, const QString &path)
{
    CsvReader csv(data);
    qsizetype total = -1, calls = -1, avg = -1, minimum = -1, maximum = -1, name = -1;
    // nsys stats prints a title line ("** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):") first.
    while (csv.readRow()) {
        total = column(csv, {"Total Time (ns)", "Total Time"});
        name = column(csv, {"Name"});
        if (total >= 0 && name >= 0)
            break;
    }
    if (total < 0 || name < 0)
        throw UserError(QStringLiteral(
            "This is not an nsys kernel summary: no \"Total Time (ns)\" and \"Name\" columns. "
            "Export one with `nsys stats --report cuda_gpu_kern_sum --format csv REPORT.nsys-rep`."));
    calls = column(csv, {"Instances", "Count"});
    avg = column(csv, {"Avg (ns)", "Average (ns)", "Average"});
    minimum = column(csv, {"Min (ns)", "Minimum (ns)", "Minimum"});
    maximum = column(csv, {"Max (ns)", "Maximum (ns)", "Maximum"});

    KernelAggregator aggregator;
    while (csv.readRow()) {
        if (csv.isBlank() || csv.size() <= name)
            continue;
        const auto num = [&csv](qsizetype i) {
            return i >= 0 ? NcuValue::number(csv.field(i)) : std::nullopt;
        };
        const auto totalNs = num(total);
        if (!totalNs)
            continue;
        KernelStat s;
        s.name = csv.text(name);
        s.totalNs = *totalNs;
        s.calls = int(num(calls).value_or(1));
        s.avgNs = num(avg).value_or(s.calls ? s.totalNs / s.calls : 0);
        s.minNs = num(minimum).value_or(s.avgNs);
        s.maxNs = num(maximum).value_or(s.avgNs);
        aggregator.addSummary(std::move(s));
    }
    return aggregator.table(QStringLiteral("nsys-kernsum"), path);
}

} // namespace hotkernel
