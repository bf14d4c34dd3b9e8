// SPDX-License-Identifier: Apache-2.0
#include "inspect/kernelreportparser.h"

#include "base/usererror.h"
#include "inspect/ncudetailsparser.h"
#include "inspect/ncurawparser.h"
#include "inspect/nsyskernsumparser.h"
#include "inspect/torchtracereportparser.h"
#include "inspect/traceparser.h"

namespace hotkernel {

KernelReportParser::Format KernelReportParser::detect(QByteArrayView data)
{
    // The header is within the first few lines; look at a bounded prefix.
    const QByteArrayView head = data.first(std::min<qsizetype>(data.size(), 64 * 1024));
    const QByteArrayView trimmed = head.trimmed();
    if (TorchTraceReportParser::looksLikeOne(head))
        return Format::TorchTrace;
    if (trimmed.startsWith('{'))
        return Format::Trace;
    if (head.contains("\"Metric Name\"") || head.contains(",Metric Name,"))
        return Format::NcuDetails;
    if (head.contains("Total Time") && (head.contains("Instances") || head.contains("Count")) &&
        head.contains("Name"))
        return Format::NsysKernSum;
    if (head.contains("Kernel Name") && head.contains("__"))
        return Format::NcuRaw;
    if (head.contains("\"Address\"") && head.contains("\"Source\""))
        return Format::NcuSource;
    return Format::Unknown;
}

QString KernelReportParser::formatName(Format format)
{
    switch (format) {
    case Format::NcuDetails:
        return QStringLiteral("ncu-details");
    case Format::NcuRaw:
        return QStringLiteral("ncu-raw");
    case Format::NcuSource:
        return QStringLiteral("ncu-source");
    case Format::NsysKernSum:
        return QStringLiteral("nsys-kernsum");
    case Format::Trace:
        return QStringLiteral("trace");
    case Format::TorchTrace:
        return QStringLiteral("torch-trace");
    case Format::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

KernelTable KernelReportParser::parse(QByteArrayView data, const QString &path)
{
    switch (detect(data)) {
    case Format::NcuDetails:
        return NcuDetailsParser::parse(data, path);
    case Format::NcuRaw:
        return NcuRawParser::parse(data, path);
    case Format::NsysKernSum:
        return NsysKernSumParser::parse(data, path);
    case Format::Trace:
        return TraceParser::parse(data, path);
    case Format::TorchTrace:
        return TorchTraceReportParser::parse(data, path);
    case Format::NcuSource:
        throw UserError(
            QStringLiteral("%1 is an ncu source page (per-instruction samples), not a kernel list. "
                           "Use it with `hotkernel disasm BINARY --source-report %1`; for top_kernels export "
                           "`ncu --import REPORT.ncu-rep --csv --page details`.")
                .arg(path));
    case Format::Unknown:
        break;
    }
    throw UserError(
        QStringLiteral("Cannot tell what kind of report %1 is. top_kernels reads an ncu details or raw CSV "
                       "(`ncu --import R.ncu-rep --csv --page details|raw`), an nsys kernel summary "
                       "(`nsys stats --report cuda_gpu_kern_sum --format csv`) or a hotkernel trace "
                       "(`hotkernel profile --tool trace`).")
            .arg(path.isEmpty() ? QStringLiteral("the data") : path));
}

} // namespace hotkernel
